#!/usr/bin/env node
// Run a real VS Code extension host headless: code-server (VS Code 1.139.1, on Node 24) serves the
// workbench, Debian's Chromium renders it, playwright-core drives it. Set-up: setup.sh beside this
// file. No dependencies beyond playwright-core, resolved from the host dir. Its processes: processes.mjs.
//
//   import { runHost } from './scripts/vscode-host/run.mjs';
//   const code = await runHost({ extensionPath, testsPath, workspace, timeoutMs: 180_000 });
//
//   node scripts/vscode-host/run.mjs --extension DIR --tests FILE [--workspace DIR] [--vsix FILE]
//        [--extensions-dir DIR] [--timeout MS] [--log FILE] [--logs-dir DIR]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CODE_SERVER,
  HOST_DIR,
  MARKER_VAR,
  NODE24,
  formatLog,
  groupAlive,
  killAll,
  markedPids,
  spawnServer,
} from './processes.mjs';

export { HOST_DIR };
const CHROMIUM = process.env.MCPX_CHROMIUM || '/usr/bin/chromium';

const SERVER_FLAGS = [
  '--auth',
  'none',
  '--disable-telemetry',
  '--disable-update-check',
  '--disable-workspace-trust',
  '--disable-getting-started-override',
  '--ignore-last-opened',
  // Required: without it the built workbench silently ignores the `payload` query parameter.
  '--vscode-option',
  'enable-smoke-test-driver',
];
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
// User settings of every run (merged with `settings`): keep the offline workbench quiet.
const DEFAULT_SETTINGS = {
  'chat.disableAIFeatures': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'workbench.enableExperiments': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
};

/** Ensure setup.sh has been run; returns playwright-core's `chromium`. */
function loadPlaywright() {
  for (const f of [NODE24, CODE_SERVER, path.join(HOST_DIR, 'node_modules', 'playwright-core')]) {
    if (!fs.existsSync(f)) {
      throw new Error(`VS Code host not set up (${f} missing): run scripts/vscode-host/setup.sh`);
    }
  }
  return createRequire(path.join(HOST_DIR, 'package.json'))('playwright-core').chromium;
}

const remoteUri = (port, abs) => `vscode-remote://127.0.0.1:${port}` + abs.split('/').map(encodeURIComponent).join('/');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Run an extension in a fresh headless VS Code (code-server workbench in Chromium).
 *
 * @param {object} o
 * @param {string} [o.extensionPath]  extension folder loaded as extensionDevelopmentPath
 *                                    (required unless installVsix is given)
 * @param {string} [o.testsPath]      tests module (`run(): Promise<void>`); the run ends when the
 *                                    extension host calls codeAutomationExit(code)
 * @param {string} [o.workspace]      folder (or .code-workspace file) to open; default: empty dir
 * @param {string} [o.extensionsDir]  extensions dir (default: fresh one in the run dir)
 * @param {string} [o.installVsix]    .vsix installed into the extensions dir first and tested as
 *                                    installed (the dev path is then a stub; see README)
 * @param {(page, info:{port:number,url:string,runDir:string}) => any} [o.onPage]
 *        called once the page is navigating, concurrently with the tests; without testsPath the
 *        run ends when it resolves (exit code: its value if a number, else 0)
 * @param {number} [o.timeoutMs=300000] whole run, set-up to exit; throws on expiry
 * @param {string} [o.logFile]        appended: workbench + extension-host console, server output,
 *                                    uncaught page errors, timings
 * @param {string} [o.logsDir]        where to write VS Code's own logs handed to codeAutomationExit
 * @param {boolean} [o.disableExtensions] default: true unless installVsix/extensionsDir given
 * @param {boolean} [o.echo=true]     forward the extension host's console to stdout/stderr
 * @param {string[]} [o.alsoInstall] more .vsix files installed offline before the run (code-server's
 *                                    server loads one development extension only, so helpers of the
 *                                    tests come this way); extensions are then enabled
 * @param {(text:string) => void} [o.onLog] every console line of the workbench and extension host
 * @param {Record<string,string>} [o.env] extra environment for code-server (and the extension)
 * @param {Record<string,unknown>} [o.settings] user settings, merged over DEFAULT_SETTINGS
 * @returns {Promise<number>} exit code (0 = tests passed)
 */
export async function runHost(o) {
  const chromium = loadPlaywright();
  const { testsPath, installVsix, onPage, timeoutMs = 300_000, logFile, logsDir, echo = true } = o;
  const extensionPath = o.extensionPath && path.resolve(o.extensionPath);
  if (!testsPath && !onPage) throw new Error('runHost: give testsPath and/or onPage');
  if (!extensionPath && !installVsix) throw new Error('runHost: give extensionPath or installVsix');
  const disableExtensions = o.disableExtensions ?? !(installVsix || o.extensionsDir || o.alsoInstall?.length);

  const t0 = Date.now();
  const logFd = logFile ? fs.openSync(logFile, 'a') : undefined;
  const runDir = fs.mkdtempSync('/tmp/vh-'); // short: VS Code puts unix sockets under TMPDIR
  const d = (name) => {
    const p = path.join(runDir, name);
    fs.mkdirSync(p, { recursive: true });
    return p;
  };
  const tmp = d('t');
  const userData = d('u');
  fs.mkdirSync(path.join(userData, 'User'));
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify({ ...DEFAULT_SETTINGS, ...o.settings }, null, 2),
  );
  const extDir = o.extensionsDir ? path.resolve(o.extensionsDir) : d('e');
  const workspace = o.workspace ? path.resolve(o.workspace) : d('w');
  const env = { ...process.env };
  // Variables of an enclosing VS Code / Node setup would confuse code-server or Node 24
  // (VSCODE_IPC_HOOK_CLI makes code-server open in the enclosing instance instead of serving).
  for (const k of Object.keys(env)) {
    if (k.startsWith('VSCODE_') || k.startsWith('npm_') || k === 'NODE_OPTIONS' || k === 'ELECTRON_RUN_AS_NODE')
      delete env[k];
  }
  Object.assign(env, {
    TMPDIR: tmp,
    XDG_CONFIG_HOME: d('x/config'),
    XDG_DATA_HOME: d('x/data'),
    XDG_CACHE_HOME: d('x/cache'),
    XDG_STATE_HOME: d('x/state'),
    XDG_RUNTIME_DIR: d('x/run'),
    [MARKER_VAR]: runDir,
    // No gallery (it is unreachable offline anyway): no failing queries in the log.
    EXTENSIONS_GALLERY: '{}',
    ...o.env,
  });
  fs.chmodSync(env.XDG_RUNTIME_DIR, 0o700);

  const stamp = () => `+${((Date.now() - t0) / 1000).toFixed(1)}s`.padStart(7);
  const writeLog = (line) => {
    if (logFd !== undefined) fs.writeSync(logFd, `${stamp()} ${line}\n`);
  };
  const serverTail = [];
  const serverLine = (line) => {
    writeLog(`[server] ${line}`);
    serverTail.push(line);
    if (serverTail.length > 40) serverTail.shift();
  };

  let server;
  let context;
  let cleanedUp = false;
  const cleanup = async () => {
    if (cleanedUp) return;
    cleanedUp = true;
    process.off('exit', onExit);
    if (context) {
      let t;
      await Promise.race([
        context.close().catch(() => {}),
        new Promise((r) => {
          t = setTimeout(r, 10_000);
        }),
      ]);
      clearTimeout(t);
    }
    const pgid = server?.pid;
    killAll(pgid, runDir, 'SIGTERM');
    for (let i = 0; i < 50 && (groupAlive(pgid) || markedPids(runDir).length); i++) await sleep(100);
    killAll(pgid, runDir, 'SIGKILL');
    for (let i = 0; i < 20 && markedPids(runDir).length; i++) await sleep(100);
    if (logFd !== undefined) fs.closeSync(logFd);
    for (let i = 0; i < 5; i++) {
      try {
        fs.rmSync(runDir, { recursive: true, force: true });
        break;
      } catch {
        await sleep(200);
      }
    }
  };
  // Last resort if the process exits mid-run (synchronous only).
  const onExit = () => {
    killAll(server?.pid, runDir, 'SIGKILL');
    try {
      fs.rmSync(runDir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  };
  process.on('exit', onExit);

  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`runHost: timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  deadline.catch(() => {});
  const within = (p) => Promise.race([p, deadline]);

  try {
    // 1. Optionally install the packaged .vsix offline, with code-server's own CLI.
    let devPath = extensionPath;
    const install = async (vsix) => {
      const inst = spawnServer(
        ['--user-data-dir', userData, '--extensions-dir', extDir, '--install-extension', path.resolve(vsix)],
        env,
        serverLine,
      );
      server = inst;
      const code = await within(inst.exited);
      if (code !== 0) throw new Error(`installing ${vsix} failed (${code}):\n${serverTail.join('\n')}`);
      server = undefined;
      killAll(inst.pid, runDir, 'SIGKILL');
    };
    for (const vsix of o.alsoInstall ?? []) await install(vsix);
    if (installVsix) {
      await install(installVsix);
      // The extension host only runs tests with an extensionDevelopmentPath; a stub that
      // contributes nothing lets the installed extension run as installed (Production mode).
      devPath = testsPath ? d('stub') : undefined;
      if (devPath) {
        fs.writeFileSync(
          path.join(devPath, 'package.json'),
          JSON.stringify({
            name: 'vsix-test-stub',
            publisher: 'mcpx-test',
            version: '0.0.0',
            engines: { vscode: '*' },
          }),
        );
      }
    }

    // 2. Start code-server on a free loopback port.
    let onPort;
    const portP = new Promise((r) => {
      onPort = r;
    });
    server = spawnServer(
      ['--bind-addr', '127.0.0.1:0', '--user-data-dir', userData, '--extensions-dir', extDir, ...SERVER_FLAGS],
      env,
      (line) => {
        serverLine(line);
        const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
        if (m) onPort(+m[1]);
      },
    );
    const serverDied = server.exited.then((code) => {
      throw new Error(`code-server exited (${code}):\n${serverTail.join('\n')}`);
    });
    serverDied.catch(() => {});
    const port = await within(Promise.race([portP, serverDied]));
    const tServer = Date.now();

    // 3. Chromium with the automation hooks exposed before the workbench loads.
    context = await within(
      chromium.launchPersistentContext(d('c'), {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        env,
        viewport: { width: 1400, height: 900 },
      }),
    );
    const page = context.pages()[0] ?? (await context.newPage());
    let onExitCode;
    const exitP = new Promise((r) => {
      onExitCode = r;
    });
    let exited = false;
    await page.exposeFunction('codeAutomationLog', (type, message) => {
      const text = formatLog(message);
      writeLog(`[log:${type}] ${text}`);
      o.onLog?.(text);
      if (echo && !exited) (type === 'error' ? process.stderr : process.stdout).write(text + '\n');
    });
    await page.exposeFunction('codeAutomationExit', async (code, logs) => {
      if (logsDir && Array.isArray(logs)) {
        for (const l of logs) {
          if (!l?.relativePath) continue;
          const f = path.join(logsDir, l.relativePath);
          fs.mkdirSync(path.dirname(f), { recursive: true });
          fs.writeFileSync(f, l.contents ?? '');
        }
      }
      onExitCode(code);
    });
    page.on('pageerror', (e) => writeLog(`[page:uncaught] ${e?.stack || e}`));

    const payload = [];
    if (devPath) payload.push(['extensionDevelopmentPath', remoteUri(port, devPath)]);
    if (testsPath) payload.push(['extensionTestsPath', remoteUri(port, path.resolve(testsPath))]);
    payload.push(['skipWelcome', 'true'], ['skipReleaseNotes', 'true']);
    if (disableExtensions) payload.push(['disableExtensions', 'true']);
    const target = workspace.endsWith('.code-workspace') ? 'workspace' : 'folder';
    const url =
      `http://127.0.0.1:${port}/?${target}=${encodeURIComponent(workspace)}` +
      `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    writeLog(`[run] ${url}`);
    await within(page.goto(url, { waitUntil: 'domcontentloaded' }));
    const tPage = Date.now();

    // 4. Wait for the tests' exit code, or for a UI-only driver to finish.
    const ends = [
      exitP.then((c) => {
        exited = true;
        return c;
      }),
      serverDied,
    ];
    if (onPage) {
      const driver = Promise.resolve().then(() => onPage(page, { port, url, runDir }));
      // A driver failing after the tests already exited (page closing under it) is not an error.
      ends.push(
        driver.then(
          (v) => (testsPath ? new Promise(() => {}) : typeof v === 'number' ? v : 0),
          (e) => (exited ? new Promise(() => {}) : Promise.reject(e)),
        ),
      );
    }
    const code = await within(Promise.race(ends));
    exited = true;
    writeLog(`[run] exit ${code}; server up after ${tServer - t0} ms, page loaded after ${tPage - t0} ms`);
    return code;
  } catch (e) {
    writeLog(`[run] error: ${e?.stack || e}`);
    throw e;
  } finally {
    clearTimeout(timer);
    const tc = Date.now();
    await cleanup();
    if (logFile) fs.appendFileSync(logFile, `${stamp()} [run] cleanup took ${Date.now() - tc} ms\n`);
  }
}

function parseArgs(argv) {
  const out = {};
  const names = {
    '--extension': 'extensionPath',
    '--tests': 'testsPath',
    '--workspace': 'workspace',
    '--vsix': 'installVsix',
    '--extensions-dir': 'extensionsDir',
    '--timeout': 'timeoutMs',
    '--log': 'logFile',
    '--logs-dir': 'logsDir',
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    const key = names[flag];
    if (!key) throw new Error(`unknown argument ${argv[i]}`);
    out[key] = inline ?? argv[++i];
  }
  if (out.timeoutMs) out.timeoutMs = Number(out.timeoutMs);
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
    if (!opts.testsPath) throw new Error('--tests FILE is required');
  } catch (e) {
    console.error(
      `${e.message}\nusage: node scripts/vscode-host/run.mjs --extension DIR --tests FILE` +
        ' [--workspace DIR] [--vsix FILE] [--extensions-dir DIR] [--timeout MS] [--log FILE] [--logs-dir DIR]',
    );
    process.exit(2);
  }
  // Ctrl-C / CI cancellation: the 'exit' hook in runHost kills the run's processes.
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
  runHost(opts).then(
    (code) => {
      console.log(`[vscode-host] tests exited with ${code}`);
      process.exit(code);
    },
    (e) => {
      console.error(`[vscode-host] ${e?.stack || e}`);
      process.exit(1);
    },
  );
}
