// The command line's arguments, read in one place for every subcommand: which flags exist, what each
// takes and where its value goes. A subcommand names the flags it takes (src/cli/command.ts); any other
// flag is refused, naming it.

/** How a flag is read, and where its value goes. */
type Flag =
  | {
      readonly kind: 'value';
      readonly into:
        | 'config'
        | 'endpoint'
        | 'transport'
        | 'connect'
        | 'identity'
        | 'session'
        | 'client'
        | 'server'
        | 'since'
        | 'profile'
        | 'timeout'
        | 'name'
        | 'token'
        | 'on'
        | 'tool';
    }
  | {
      readonly kind: 'switch';
      readonly into:
        | 'all'
        | 'text'
        | 'standalone'
        | 'noBrowser'
        | 'follow'
        | 'json'
        | 'list'
        | 'import'
        | 'dryRun'
        | 'yes'
        | 'noSandbox';
    }
  /** Given again and again: each value kept, in order. */
  | { readonly kind: 'list'; readonly into: 'env' }
  /** `--port N` is `--set port=N`. */
  | { readonly kind: 'setting'; readonly key: string }
  | { readonly kind: 'set' };

export const FLAGS = {
  config: { kind: 'value', into: 'config' },
  endpoint: { kind: 'value', into: 'endpoint' },
  transport: { kind: 'value', into: 'transport' },
  connect: { kind: 'value', into: 'connect' },
  identity: { kind: 'value', into: 'identity' },
  session: { kind: 'value', into: 'session' },
  client: { kind: 'value', into: 'client' },
  server: { kind: 'value', into: 'server' },
  since: { kind: 'value', into: 'since' },
  profile: { kind: 'value', into: 'profile' },
  timeout: { kind: 'value', into: 'timeout' },
  name: { kind: 'value', into: 'name' },
  env: { kind: 'list', into: 'env' },
  yes: { kind: 'switch', into: 'yes' },
  'no-sandbox': { kind: 'switch', into: 'noSandbox' },
  registry: { kind: 'setting', key: 'registry.url' },
  store: { kind: 'setting', key: 'store.url' },
  token: { kind: 'value', into: 'token' },
  on: { kind: 'value', into: 'on' },
  tool: { kind: 'value', into: 'tool' },
  follow: { kind: 'switch', into: 'follow' },
  json: { kind: 'switch', into: 'json' },
  all: { kind: 'switch', into: 'all' },
  text: { kind: 'switch', into: 'text' },
  standalone: { kind: 'switch', into: 'standalone' },
  'no-browser': { kind: 'switch', into: 'noBrowser' },
  list: { kind: 'switch', into: 'list' },
  import: { kind: 'switch', into: 'import' },
  'dry-run': { kind: 'switch', into: 'dryRun' },
  port: { kind: 'setting', key: 'port' },
  address: { kind: 'setting', key: 'address' },
  passthrough: { kind: 'setting', key: 'mcp.passthrough' },
  'mcp-spec': { kind: 'setting', key: 'spec.first' },
  set: { kind: 'set' },
} as const satisfies Record<string, Flag>;

export type FlagName = keyof typeof FLAGS;

/** The flags that are settings (docs/settings.md): taken by the commands that build settings. */
export const SETTING_FLAGS = ['port', 'address', 'passthrough', 'mcp-spec', 'set'] as const satisfies FlagName[];

/** What a note under the usage says about a flag, shown once after the entries of the commands taking it. */
export const FLAG_NOTES: Partial<Record<FlagName, readonly string[]>> = {
  connect: [
    '--connect auto (the default): the editor window for this',
    'folder, else the running daemon, else one started in the',
    'background (shim.daemonIdleExit); ssh://[USER@]HOST[:PORT]:',
    'the gateway there, through mcpx on that host (shim.sshCommand)',
  ],
  timeout: [
    '--timeout 30s|500ms|2m: a shorter timeout for the call than',
    'pool.callTimeout (never longer; a unit is required)',
  ],
};

export interface Args {
  config?: string;
  endpoint?: string;
  transport?: string;
  /** mcpx serve, tools, call, read, exec: which gateway (auto, a URL, ssh://host). */
  connect?: string;
  /** mcpx tasks: whose tasks. */
  identity?: string;
  session?: string;
  /** mcpx permissions SERVER TOOL: the client's declared name; mcpx activity: whose records. */
  client?: string;
  all?: boolean;
  /** mcpx call/read: text content as text. */
  text?: boolean;
  /** mcpx serve: a whole gateway in this process instead of a shim. */
  standalone?: boolean;
  /** mcpx auth login: print the URL, open no browser. */
  noBrowser?: boolean;
  /** mcpx activity: which records, and how. */
  server?: string;
  since?: string;
  /** mcpx serve, tools, call, read, exec: the profile whose endpoint is reached (docs/gateway.md "Profiles"). */
  profile?: string;
  /** mcpx call, read, exec: a shorter timeout for the call (a duration with its unit). */
  timeout?: string;
  /** mcpx auth whoami: the access token to show (`-`: read from stdin). */
  token?: string;
  /** mcpx guardrails check: what the text is screened as (results, descriptions, arguments), and the tool
   *  it is of (--server too). */
  on?: string;
  tool?: string;
  follow?: boolean;
  json?: boolean;
  /** mcpx connect: list the clients; move their servers into mcpx's config; show the change only. */
  list?: boolean;
  import?: boolean;
  dryRun?: boolean;
  /** mcpx install: the local name; its inputs (KEY=VALUE, each given again for more); a deprecated
   *  server installed all the same; no sandbox. */
  name?: string;
  env?: string[];
  yes?: boolean;
  noSandbox?: boolean;
  /** --help or -h: the subcommand's usage instead of running it. */
  help?: boolean;
  positional: string[];
  /** Settings given as flags, by key (--port, --set key=value, …). */
  flags: Record<string, unknown>;
}

/** Bad usage of one subcommand: printed with that subcommand's usage, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A flag that exists, but not for this subcommand: the dispatcher says which subcommands take it. */
export class ForeignFlag extends UsageError {
  override name = 'ForeignFlag';
  constructor(readonly flag: FlagName) {
    super(`--${flag}`);
  }
}

const isFlag = (name: string): name is FlagName => Object.hasOwn(FLAGS, name);

/** `argv` (after the subcommand's name) as the subcommand `name` takes it. */
export function parseArgs(
  name: string,
  command: { readonly flags: readonly FlagName[]; readonly positional?: boolean },
  argv: readonly string[],
): Args {
  const a: Args = { positional: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      a.help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      if (!command.positional) throw new UsageError(`${arg}: unexpected argument (mcpx ${name} takes none)`);
      a.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    if (!isFlag(flag)) throw new UsageError(`--${flag}: unknown flag for mcpx ${name}`);
    if (!command.flags.includes(flag)) throw new ForeignFlag(flag);
    const how: Flag = FLAGS[flag];
    if (how.kind === 'switch') {
      if (inline !== undefined) throw new UsageError(`--${flag}: takes no value`);
      a[how.into] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${flag}: needs a value`);
    if (how.kind === 'value') a[how.into] = value;
    else if (how.kind === 'list') (a[how.into] ??= []).push(value);
    else if (how.kind === 'setting') a.flags[how.key] = value;
    else {
      const j = value.indexOf('=');
      if (j <= 0) throw new UsageError(`--set: expected key=value, got ${JSON.stringify(value)}`);
      a.flags[value.slice(0, j)] = value.slice(j + 1);
    }
  }
  return a;
}
