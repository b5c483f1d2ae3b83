// mcpx: Show Log — mcpx's own output channel.
import { command } from './command';

export const showLog = command((d) => d.log.show());
