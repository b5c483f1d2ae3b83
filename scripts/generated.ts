// Generated parts of the docs and the manifest, from the tables in code. `npm run gen` writes them;
// test/docs.test.ts fails when a file on disk differs from what this produces.
import { CACHE_SCOPE } from '../src/protocol/envelope';
import { CODE_TABLE, LOCAL_CODES } from '../src/protocol/errors';
import { METHODS, type MethodDescriptor } from '../src/protocol/methods';
import {
  BATCHES,
  CONTENT_TYPES,
  FIELDS,
  META_KEYS,
  OWN_REQUEST_META,
  REVISIONS,
  type Span,
  eraOf,
  inSpan,
} from '../src/protocol/revisions';
import { SETTINGS, envName, type SettingDef } from '../src/config/settings';
import { NOTIFICATION_HANDLERS } from '../src/server/handlers';

const revs = (s: Span) => REVISIONS.filter((r) => inSpan(r, s));
const span = (s: Span) => {
  const r = revs(s);
  if (r.length === REVISIONS.length) return 'all';
  return r.length === 1 ? r[0]! : `${r[0]}..${r.at(-1)}`;
};
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;

export function protocolTables(): string {
  const out: string[] = [];
  out.push('### Revisions', '', row(['revision', 'era', 'how a peer states it']), row(['---', '---', '---']));
  for (const r of REVISIONS) out.push(row([r, eraOf(r), eraOf(r) === 'modern' ? 'per-request `_meta`' : 'initialize']));
  // Every client request has a handler (server/handlers.ts is typed exhaustively against METHODS).
  const methods = Object.entries(METHODS as Record<string, MethodDescriptor>);
  out.push(
    '',
    '### Methods a client may send',
    '',
    row(['method', 'defined in', 'accepted from', 'kind', 'handled now', 'Mcp-Name (2026-07-28)', 'notes']),
    row(['---', '---', '---', '---', '---', '---', '---']),
  );
  for (const [m, d] of methods) {
    if (d.from !== 'client') continue;
    const handled = d.kind === 'request' || m in NOTIFICATION_HANDLERS;
    const notes = [
      d.inputRequired ? 'may answer `input_required`' : '',
      d.idempotent ? 'sent again on a broken stream' : '',
      d.needsTasksExtension ? 'tasks extension declared (2026-07-28)' : '',
    ].filter(Boolean);
    out.push(
      row([
        `\`${m}\``,
        span(d.span),
        span(d.accepted ?? d.span),
        d.kind,
        handled ? 'yes' : 'ignored',
        d.mcpName ? `\`params.${d.mcpName.field}\`${d.mcpName.optional ? ' (may be left out)' : ''}` : '',
        notes.join('; '),
      ]),
    );
  }
  out.push('', '### Questions a server may put to a client', '', row(['method', 'defined in']), row(['---', '---']));
  for (const [m, d] of methods) if (d.from === 'server') out.push(row([`\`${m}\``, span(d.span)]));
  out.push(
    '',
    '### Fields that exist only in some revisions',
    '',
    row(['shape', 'field', 'sent to']),
    row(['---', '---', '---']),
  );
  for (const [shape, fields] of Object.entries(FIELDS))
    for (const [f, s] of Object.entries(fields)) out.push(row([shape, `\`${f}\``, span(s)]));
  for (const [k, s] of Object.entries(META_KEYS)) out.push(row(['_meta', `\`${k}\``, span(s)]));
  out.push(
    '',
    "### mcpx's own request keys",
    '',
    "Read from a request's `_meta` and never forwarded upstream:",
    '',
    row(['key', 'read from', 'what it is']),
    row(['---', '---', '---']),
  );
  for (const [k, { span: s, what }] of Object.entries(OWN_REQUEST_META)) out.push(row([`\`${k}\``, span(s), what]));
  out.push('', '### Content block types', '', row(['type', 'defined in']), row(['---', '---']));
  for (const [t, s] of Object.entries(CONTENT_TYPES)) out.push(row([`\`${t}\``, span(s)]));
  out.push(
    '',
    '### Error codes',
    '',
    row(['code', 'name', 'sent to', 'HTTP status (legacy)', 'HTTP status (2026-07-28)']),
    row(['---', '---', '---', '---', '---']),
  );
  for (const [c, r] of Object.entries(CODE_TABLE))
    out.push(row([c, r.name, span(r.span), String(r.http.legacy), String(r.http.modern)]));
  out.push(
    '',
    "### mcpx's own errors",
    '',
    'Raised as `McpxError` with a string code; the code each reaches the wire as (both eras):',
    '',
    row(['local code', 'JSON-RPC code']),
    row(['---', '---']),
  );
  // Several codes: the first the peer's revision may receive (CODE_TABLE's spans).
  for (const [c, code] of Object.entries(LOCAL_CODES))
    out.push(
      row([`\`${c}\``, typeof code === 'number' ? String(code) : code.join(', the first the revision has, else ')]),
    );
  out.push(
    '',
    '### Cache hints (2026-07-28)',
    '',
    row(['method', 'cacheScope', 'ttlMs from']),
    row(['---', '---', '---']),
  );
  for (const [m, s] of Object.entries(CACHE_SCOPE))
    out.push(
      row([`\`${m}\``, s, m === 'resources/read' ? '`protoMessages.readMaxAge`' : '`protoMessages.listMaxAge`']),
    );
  out.push('', `JSON-RPC batches are accepted from: ${span(BATCHES)}.`);
  return out.join('\n');
}

function fmtDefault(d: SettingDef): string {
  if (d.kind === 'duration') return `${String(d.default)} ms`;
  return `\`${JSON.stringify(d.default)}\``;
}

export function settingsTable(): string {
  const out = [row(['key', 'default', 'environment', 'description']), row(['---', '---', '---', '---'])];
  for (const d of SETTINGS)
    out.push(
      row([
        `\`${d.key}\``,
        fmtDefault(d),
        [envName(d.key), ...(d.env ?? [])].map((e) => `\`${e}\``).join(', '),
        d.description,
      ]),
    );
  // The editor's own settings (package.json contributes them; headless has its config file instead).
  out.push(
    '',
    'Read by the VS Code extension only:',
    '',
    row(['VS Code setting', 'default', 'description']),
    row(['---', '---', '---']),
  );
  for (const [k, v] of Object.entries(EDITOR_SETTINGS))
    out.push(row([`\`${k}\``, `\`${JSON.stringify(v.default)}\``, String(v.markdownDescription)]));
  return out.join('\n');
}

/** Settings only the editor reads (not the gateway's registry: headless has its config file for these). */
const EDITOR_SETTINGS: Record<string, Record<string, unknown>> = {
  'mcpx.autoStart': {
    type: 'boolean',
    default: true,
    markdownDescription: 'Start the gateway when VS Code has started (activation on startup finished).',
  },
  'mcpx.sampling.models': {
    type: 'array',
    items: { type: 'string' },
    default: [],
    markdownDescription:
      "Language models that may answer an upstream's sampling request in the editor: model ids, vendors or `vendor/family`, `*` globs. Empty: any model VS Code offers.",
  },
  'mcpx.permissions': {
    type: 'object',
    default: {},
    markdownDescription:
      'Which agents\' calls run, wait for you, or are refused: `default` (`allow`), `askTimeout`, and `rules` (`server`, `tool`, `kind`, `annotations`, `client`, and `action`: `allow`, `ask` or `deny`), first match wins. A `permissions` block in `.vscode/mcp.json` replaces this one. See docs/gateway.md "Permissions".',
  },
  'mcpx.guardrails': {
    type: 'object',
    default: {},
    markdownDescription:
      'What reaches the model is screened: `rules` (`detect`: `secrets`, `pii`, `injection` or a detector of yours; `on`: `results`, `descriptions`, `arguments`; `server`, `tool`; and `action`: `log`, `redact`, `block` or `ask`), the first match deciding each finding, and `detectors` (a `pattern`, or an analyzer `url` speaking Presidio\'s API with a `timeout` and `failure`: `open` or `closed`). A `guardrails` block in `.vscode/mcp.json` replaces this one. See docs/gateway.md "Guardrails".',
  },
  'mcpx.servers': {
    type: 'object',
    default: {},
    markdownDescription:
      'Upstream servers, by name, in the format of `.vscode/mcp.json` (`type`, `command`, `args`, `env`, `url`, `headers`, `auth`, `tools`, `scope`). The workspace file wins on a name both define.',
  },
};

/** docs/commands.md: the commands, view container and views the manifest contributes. */
export function commandsTable(pkg: { contributes: Record<string, unknown> }): string {
  const c = pkg.contributes as {
    commands: Array<{ command: string; title: string; category?: string }>;
    viewsContainers: { activitybar: Array<{ id: string; title: string }> };
    views: Record<string, Array<{ id: string; name: string }>>;
  };
  const out = [row(['command id', 'palette title']), row(['---', '---'])];
  for (const cmd of c.commands)
    out.push(row([`\`${cmd.command}\``, `${cmd.category ? `${cmd.category}: ` : ''}${cmd.title}`]));
  out.push('', row(['view container / view id', 'name']), row(['---', '---']));
  for (const vc of c.viewsContainers.activitybar) {
    out.push(row([`\`${vc.id}\` (activity bar)`, vc.title]));
    for (const v of c.views[vc.id] ?? []) out.push(row([`\`${v.id}\``, v.name]));
  }
  const editor = Object.entries(EDITOR_SETTINGS).map(([k, v]) => row([`\`${k}\``, String(v.markdownDescription)]));
  out.push('', row(['editor-only setting', 'description']), row(['---', '---']), ...editor);
  return out.join('\n');
}

/** contributes.configuration of package.json: every setting as `mcpx.<key>`. */
export function configurationContribution(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const d of SETTINGS) {
    const type =
      d.kind === 'integer'
        ? 'integer'
        : d.kind === 'boolean'
          ? 'boolean'
          : d.kind === 'list' || d.kind === 'revisions'
            ? 'array'
            : d.kind === 'object' // a block, or true/false for its defaults or none (upstream.sandbox)
              ? ['boolean', 'object']
              : 'string';
    const p: Record<string, unknown> = {
      type,
      default: d.kind === 'duration' ? `${String(d.default)}ms` : d.default,
      markdownDescription: d.description,
    };
    if (type === 'array') p.items = { type: 'string' };
    if (d.kind === 'duration') p.pattern = '^\\d+(\\.\\d+)?(ms|s|m|h|d)?$';
    if (d.choices) p.enum = d.choices;
    properties[`mcpx.${d.key}`] = p;
  }
  return { title: 'mcpx', properties: { ...EDITOR_SETTINGS, ...properties } };
}

/** Replace what stands between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`. */
export function fill(text: string, name: string, content: string): string {
  const open = `<!-- generated:${name} -->`;
  const close = `<!-- /generated:${name} -->`;
  const a = text.indexOf(open);
  const b = text.indexOf(close);
  if (a < 0 || b < a) throw new Error(`markers for ${name} not found`);
  return text.slice(0, a + open.length) + '\n' + content + '\n' + text.slice(b);
}
