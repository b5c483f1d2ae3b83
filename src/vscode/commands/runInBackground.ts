// mcpx: Run Tool Call in Background — from the link on a palette call's progress notification (that
// call), or the palette (the newest call running).
import { command } from './command';

export const runInBackground = command((d, id?: string) => {
  if (!d.palette.detach(id)) void d.window.showInformationMessage('mcpx: no tool call from the palette is running.');
});
