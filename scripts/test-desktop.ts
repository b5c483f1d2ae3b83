// `npm run test:desktop`: the editor suite (build/vscode/suite.js) in desktop VS Code through
// @vscode/test-electron, beside the test language model, in a workspace like test/vscode.test.ts's (one
// legacy fixture upstream in .vscode/mcp.json, a .code-workspace file). It needs a machine that can
// download VS Code (test-electron fetches the build into .vscode-test/) and a display: on Linux without
// one it runs itself again under `xvfb-run -a`. The desktop run has no page driver, so the tests that
// need a widget answered are skipped there and named in its output (MCPX_SUITE=desktop;
// docs/editor-hosts.md). `npm test` never runs it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { SERVER_JS } from '../test/fixtures/upstream/client';
import { repoRoot } from '../test/harness/gateway';

async function main(): Promise<number> {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.MCPX_UNDER_XVFB) {
    const r = spawnSync('xvfb-run', ['-a', process.execPath, ...process.argv.slice(1)], {
      stdio: 'inherit',
      env: { ...process.env, MCPX_UNDER_XVFB: '1' },
    });
    if (r.error)
      throw new Error(`xvfb-run is needed on Linux without a display (apt install xvfb): ${r.error.message}`);
    return r.status ?? 1;
  }
  const root = repoRoot();
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-desktop-'));
  try {
    const ws = join(dir, 'ws');
    mkdirSync(join(ws, '.vscode'), { recursive: true });
    writeFileSync(
      join(ws, '.vscode', 'mcp.json'),
      JSON.stringify({
        servers: {
          up: {
            type: 'stdio',
            command: process.execPath,
            args: [SERVER_JS(), '--rev', '2025-11-25', '--name', 'up', '--record', join(ws, 'up.jsonl')],
          },
        },
      }),
    );
    const workspace = join(dir, 'mcpx.code-workspace');
    writeFileSync(workspace, JSON.stringify({ folders: [{ path: ws }] }));
    // A user-data folder of this run: the language model API on, the workbench quiet.
    const userData = join(dir, 'user-data');
    mkdirSync(join(userData, 'User'), { recursive: true });
    writeFileSync(
      join(userData, 'User', 'settings.json'),
      JSON.stringify({
        'chat.disableAIFeatures': false,
        'extensions.autoCheckUpdates': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'workbench.startupEditor': 'none',
      }),
    );
    const vscodeExecutablePath = await downloadAndUnzipVSCode(process.env.MCPX_VSCODE_VERSION || 'stable');
    await runTests({
      vscodeExecutablePath,
      // mcpx and the test language model (test/vscode/lm-provider), both loaded from their folders.
      extensionDevelopmentPath: [root, join(root, 'test', 'vscode', 'lm-provider')],
      extensionTestsPath: join(root, 'build', 'vscode', 'suite.js'),
      extensionTestsEnv: { MCPX_SUITE: 'desktop' },
      launchArgs: [
        workspace,
        `--user-data-dir=${userData}`,
        `--extensions-dir=${join(dir, 'extensions')}`,
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
      ],
    });
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    console.error(`test:desktop failed: ${e.message}`);
    process.exit(1);
  },
);
