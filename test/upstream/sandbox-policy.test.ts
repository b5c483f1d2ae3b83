// The upstream sandbox's policy on its own (docs/security.md "The upstream sandbox"): which network hosts a
// server may reach (a name exactly, *.domain below it only, a port where given) and the server's own
// directories it may write (a bin/'s prefix, never the home or a directory right in it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { hostAllowed } from '../../src/upstream/sandbox/net';
import { serverDirs } from '../../src/upstream/sandbox/plan';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-sandbox-test-'));
const home = join(dir, 'home');
const ws = join(dir, 'workspace');
const out = join(dir, 'out');
const outside = join(dir, 'outside');
const state = join(dir, 'state');
const DECOY = `decoy-key-${randomBytes(16).toString('hex')}`;
const decoy = join(home, '.ssh', 'id_ed25519');
for (const d of [join(home, '.ssh'), ws, out, outside, state]) mkdirSync(d, { recursive: true });
writeFileSync(decoy, DECOY);
writeFileSync(join(ws, 'inside.txt'), 'inside the workspace');

after(() => rmSync(dir, { recursive: true, force: true }));

test('network hosts: a name exactly, *.domain below it only, a port where given (else 443 and 80)', () => {
  const hosts = ['registry.npmjs.org', '*.example.com', 'localhost:8080'];
  const cases: Array<[string, number, boolean]> = [
    ['registry.npmjs.org', 443, true],
    ['REGISTRY.npmjs.org.', 80, true],
    ['registry.npmjs.org', 22, false],
    ['evil-registry.npmjs.org', 443, false],
    ['api.example.com', 443, true],
    ['a.b.example.com', 80, true],
    ['example.com', 443, false],
    ['notexample.com', 443, false],
    ['localhost', 8080, true],
    ['localhost', 443, false],
  ];
  for (const [name, port, allowed] of cases) assert.equal(hostAllowed(hosts, name, port), allowed, `${name}:${port}`);
});

test("the server's own directories: a bin/'s prefix, never the home or a directory right in it; a package's node_modules or root", () => {
  const file = (p: string, mode = 0o644) => {
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, '');
    chmodSync(p, mode);
    return p;
  };
  const h = join(dir, 'dirs-home');
  const was = process.env.HOME;
  process.env.HOME = h; // os.homedir() reads it
  try {
    file(join(h, '.local', 'bin', 'tool'), 0o755);
    file(join(h, '.nvm', 'versions', 'node', 'v1', 'bin', 'node'), 0o755);
    const pkg = join(dir, 'proj');
    file(join(pkg, 'package.json'));
    const entry = file(join(pkg, 'src', 'server.js'));
    file(join(pkg, 'node_modules', '@s', 'srv', 'dist', 'index.js'));
    assert.deepEqual(serverDirs('tool', [], pkg, join(h, '.local', 'bin')), [join(h, '.local', 'bin')]);
    assert.deepEqual(
      serverDirs(join(h, '.nvm', 'versions', 'node', 'v1', 'bin', 'node'), [entry, '--flag', 'word'], pkg, ''),
      [join(h, '.nvm', 'versions', 'node', 'v1'), pkg],
    );
    assert.deepEqual(serverDirs('missing', ['node_modules/@s/srv/dist/index.js'], pkg, ''), [
      join(pkg, 'node_modules'),
    ]);
  } finally {
    process.env.HOME = was;
  }
});
