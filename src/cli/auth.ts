// `mcpx auth login|status|logout`: signing in to an OAuth upstream from the command line. The sign-in
// lands in <state>/oauth-tokens.json (mode 0600), where the headless gateway — daemon or standalone —
// finds it: one sign-in serves every client (docs/gateway.md "Signing in to upstreams"). `mcpx auth
// whoami` is the other direction: how a gateway that takes tokens sees one (./whoami.ts).
import { spawn } from 'node:child_process';
import type { ServerDef } from '../config/servers';
import { system } from '../platform';
import { defaultStateDir } from '../config/paths';
import { Gateway } from '../gateway/gateway';
import type { SignInPort } from '../upstream/auth/authorizer';
import { FileSecretStore, loadGrant } from '../upstream/auth/store';
import { describeSource } from '../upstream/auth/sources';
import { type Args, SETTING_FLAGS, UsageError } from './args';
import type { Command } from './command';
import { configOf, reportIssues, settingsOf } from './config';
import { printable } from '../kit/printable';
import { out } from './output';
import { whoami } from './whoami';

export const auth: Command = {
  usage: [
    [
      'auth login SERVER [--no-browser] [--config FILE]',
      'sign in to an OAuth server: prints the URL (and opens a',
      'browser when there is one), waits for the redirect',
    ],
    ['auth status [--config FILE]', 'which servers are signed in (never a token)'],
    ['auth logout SERVER [--config FILE]', 'forget a sign-in, revoking its tokens where possible'],
    [
      'auth whoami --endpoint URL --token TOKEN|-',
      'how the gateway at URL sees an access token: its identity,',
      'scopes and claims, or why it refuses it (-: read from stdin)',
    ],
  ],
  flags: ['no-browser', 'config', 'endpoint', 'token', ...SETTING_FLAGS],
  positional: true,
  run,
};

async function run(a: Args): Promise<void> {
  const [sub, server, ...extra] = a.positional;
  if (sub === 'whoami') return whoami(a);
  if (a.endpoint !== undefined || a.token !== undefined)
    throw new UsageError('mcpx auth: --endpoint and --token are for whoami');
  if (sub !== 'login' && sub !== 'logout' && sub !== 'status')
    throw new UsageError(
      sub === undefined
        ? 'mcpx auth needs login SERVER, status, logout SERVER or whoami'
        : `mcpx auth: expected login, status, logout or whoami, got ${JSON.stringify(sub)}`,
    );
  if (sub !== 'status' && server === undefined) throw new UsageError(`mcpx auth ${sub} needs a SERVER`);
  const unexpected = sub === 'status' ? server : extra[0];
  if (unexpected !== undefined) throw new UsageError(`mcpx auth: unexpected argument ${JSON.stringify(unexpected)}`);
  const config = configOf(a);
  reportIssues(config);
  const settings = settingsOf(config, a);
  const stateDir = defaultStateDir(process.env);
  const store = FileSecretStore.inState(stateDir);
  // The servers that could sign in: over HTTP, with no other kind of auth configured.
  const http = config.servers.filter((s) => s.type !== 'stdio' && (!s.auth || s.auth.type === 'oauth'));
  if (sub === 'status') return status(http, store);
  if (!http.some((s) => s.name === server)) {
    const names = http.map((s) => s.name).join(', ') || 'none';
    throw new Error(`${JSON.stringify(server)} is not a configured HTTP server that signs in (those: ${names})`);
  }
  const gateway = new Gateway(config, settings, {
    stateDir,
    log: (l) => process.stderr.write(`${l}\n`),
    auth: { store, person: terminalPerson(a.noBrowser === true) },
  });
  try {
    if (sub === 'login') {
      await gateway.signIn(server!, 'cli');
      out(`Signed in to ${server}; the connection works. Every client of the gateway uses this sign-in.`);
    } else {
      const note = await gateway.signOut(server!);
      out(
        `Signed out of ${server}${note ? ` (the authorization server did not revoke the tokens: ${note})` : '; its tokens were revoked'}.`,
      );
    }
  } finally {
    await gateway.close();
  }
}

/** `mcpx auth status`: each server that could sign in, and its sign-in (never a token). */
async function status(http: readonly ServerDef[], store: FileSecretStore): Promise<void> {
  if (!http.length) return out('no HTTP server that could sign in is configured');
  for (const s of http) {
    // A workload's tokens are never stored (docs/gateway.md "Signing in to upstreams").
    if (s.auth?.type === 'oauth' && s.auth.grant === 'jwt_bearer' && s.auth.assertion) {
      out(`${s.name}	signs in by itself with the workload token from ${describeSource(s.auth.assertion)}`);
      continue;
    }
    const g = await loadGrant(store, s.name);
    const at = g?.issuer ? new URL(g.issuer).host : undefined;
    const line = !g?.access_token
      ? g?.refresh_token
        ? `signed in at ${at}, its access token renewed on next use`
        : 'not signed in'
      : `signed in at ${at}${g.scope ? `, scopes: ${g.scope}` : ''}${
          g.expires_at
            ? `, ${g.expires_at > Date.now() ? `expires in ${ago(g.expires_at - Date.now())}` : `expired ${ago(Date.now() - g.expires_at)} ago`}`
            : ''
        }${g.token_type === 'dpop' ? ', DPoP-bound' : ''}${g.refresh_token ? ', renews itself' : ''}`;
    out(`${printable(s.name)}\t${printable(line)}`);
  }
}

function ago(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

/** The person at the terminal: the URL printed (and a browser opened when there is one); the redirect
 *  comes back to the loopback listener. */
function terminalPerson(noBrowser: boolean): SignInPort {
  return {
    available: () => true,
    async open(req) {
      out(
        `Sign in to ${req.server} at ${req.issuerHost}${req.scopes.length ? ` (scopes: ${req.scopes.join(' ')})` : ''}.`,
      );
      out(`Open this URL in a browser:\n${req.url.href}`);
      out('Waiting for the browser to come back…');
      if (!noBrowser) openBrowser(req.url.href);
    },
  };
}

/** Opens a URL in the desktop's browser where there is one; says nothing when there is none. */
function openBrowser(url: string): void {
  const cmd = system.openUrl(url, process.env);
  if (!cmd) return;
  try {
    const c = spawn(cmd[0]!, cmd.slice(1), { stdio: 'ignore', detached: true });
    c.on('error', () => undefined);
    c.unref();
  } catch {
    /* no browser: the printed URL is the way */
  }
}
