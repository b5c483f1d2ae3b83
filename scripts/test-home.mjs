// Loaded into every test process (`node --test --import`, package.json "test"), and into the conformance run
// and the benchmarks: each process gets XDG config and state homes of its own, inherited by what it starts,
// and removed when it exits. A gateway, daemon or standalone stdio server started without naming its own
// folders keeps its endpoint secret, pins, task journal and activity there: never in the person's home,
// where they would outlive the run, and never shared with a test file running beside it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const home = mkdtempSync(join(tmpdir(), 'mcpx-test-home-'));
process.env.XDG_STATE_HOME = join(home, 'state');
process.env.XDG_CONFIG_HOME = join(home, 'config');
process.on('exit', () => rmSync(home, { recursive: true, force: true }));
