// The editor-test host's setup (scripts/vscode-host/setup.sh) runs its nested `npm install` in a
// clean npm environment. Under `npm test` the outer npm exports its own configuration
// (npm_config_user_agent naming the outer Node among it) and a nested npm takes every npm_config_*
// variable as its own, so code-server's postinstall, which reads the Node version from the user
// agent, refused to install under Node 24. The probe package below records what its postinstall
// sees, installed exactly as setup.sh installs code-server.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { repoRoot } from './harness/gateway';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-host-setup-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const RECORD = `require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({
  userAgent: process.env.npm_config_user_agent, nodeOptions: process.env.NODE_OPTIONS ?? null,
  lifecycle: process.env.npm_lifecycle_event, initCwd: process.env.INIT_CWD,
  packageName: process.env.npm_package_name, nodedir: process.env.npm_config_nodedir,
  registry: process.env.npm_config_registry, node: process.version }));`;

function probeTarball(): string {
  const pkg = join(dir, 'probe-src', 'package');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'probe', version: '1.0.0', scripts: { postinstall: 'node record.js' } }),
  );
  writeFileSync(join(pkg, 'record.js'), RECORD);
  const tgz = join(dir, 'probe-1.0.0.tgz');
  execFileSync('tar', ['czf', tgz, '-C', dirname(pkg), 'package']);
  return tgz;
}

test('the host install runs in a clean npm environment, whatever an outer npm exported', () => {
  const tgz = probeTarball();
  const host = join(dir, 'host');
  mkdirSync(host);
  writeFileSync(
    join(host, 'package.json'),
    JSON.stringify({
      name: 'host',
      private: true,
      dependencies: { probe: `file:${tgz}` },
      allowScripts: { probe: true },
    }),
  );
  const out = join(dir, 'seen.json');
  const script = join(repoRoot(), 'scripts', 'vscode-host', 'clean-npm.sh');
  // What `npm test` run by a Node 18 npm would leave in the environment, including settings that
  // would break the nested install outright if it read them.
  const outer = {
    npm_config_user_agent: 'npm/10.0.0 node/v18.0.0 linux x64 workspaces/false',
    NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/',
    npm_config_offline: 'true',
    npm_lifecycle_event: 'test',
    npm_lifecycle_script: 'node --test',
    npm_package_name: 'mcpx',
    INIT_CWD: '/nonexistent-outer-cwd',
    NODE_OPTIONS: `--require ${join(dir, 'no-such-preload.js')}`,
  };
  const npmCli = join(
    execFileSync('npm', ['root', '-g'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } }).trim(),
    'npm',
    'bin',
    'npm-cli.js',
  );
  execFileSync(
    'bash',
    ['-c', `source "$1"; host_npm_install "$2" "$3" "$4"`, 'x', script, host, process.execPath, npmCli],
    {
      env: { ...process.env, ...outer, PROBE_OUT: out },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const seen = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string | null>;
  // The nested npm names the Node it runs under, not the outer one.
  assert.match(seen.userAgent ?? '', new RegExp(`node/${process.version.replace(/\./g, '\\.')} `));
  assert.equal(seen.nodeOptions, null);
  assert.equal(seen.lifecycle, 'postinstall');
  assert.equal(seen.packageName, 'probe');
  assert.equal(seen.initCwd, host);
  assert.notEqual(seen.registry, outer.NPM_CONFIG_REGISTRY);
  assert.equal(seen.nodedir, dirname(dirname(process.execPath)));
});

test('the outer variables named are exactly the npm ones', () => {
  const script = join(repoRoot(), 'scripts', 'vscode-host', 'clean-npm.sh');
  const names = execFileSync('bash', ['-c', 'source "$1"; outer_npm_vars | sort', 'x', script], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      npm_config_cache: '/c',
      NPM_CONFIG_PREFIX: '/p',
      npm_package_json: '/j',
      INIT_CWD: '/i',
      NODE_OPTIONS: '-r x',
      npm_execpath: '/e',
      NODE_PATH: '/keep',
      HOME: '/keep',
      npmish: 'keep',
    },
  });
  assert.deepEqual(names.trim().split('\n'), [
    'INIT_CWD',
    'NODE_OPTIONS',
    'NPM_CONFIG_PREFIX',
    'npm_config_cache',
    'npm_execpath',
    'npm_package_json',
  ]);
});
