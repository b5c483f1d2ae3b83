// A bundle of mcpx's own that runs beside the one running this code (dist/): the exec child, the
// OpenTelemetry exporter. Tests' bundles live in build/, so the nearest dist/ above is searched too.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `name` beside `from`, or in the nearest dist/ above it. */
export function bundleNear(name: string, from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    for (const p of [join(dir, name), join(dir, 'dist', name)]) if (existsSync(p)) return p;
    if (dirname(dir) === dir) throw new Error(`${name} not found above ${from}`);
  }
}
