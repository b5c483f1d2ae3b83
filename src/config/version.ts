// mcpx's version, written once: package.json's `version`, inlined by esbuild at build time.
import { version } from '../../package.json';

export const VERSION: string = version;
