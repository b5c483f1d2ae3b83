// `mcpx: Copy Client Config`: this gateway as another host's MCP configuration, in that host's format
// (one table, FORMATS), for the endpoint the person picks where the config has profiles (the default one
// first; docs/gateway.md "Profiles"), and in the form the person picks: the stdio shim (`mcpx serve
// --transport stdio`), or Streamable HTTP with the endpoint secret in the URL or in an Authorization header.
import { shimCommand } from '../install';
import type { GatewayState } from '../ports';
import { type Deps, command } from './command';

type Form = 'stdio' | 'http' | 'header';
type Entry = Record<string, unknown>;

/** A host's configuration format: the key its file keeps servers under (none: the entry alone), the
 *  "type" it wants per form (absent: none written), and the forms it takes. */
interface Format {
  label: string;
  detail: string;
  key?: string;
  type: Partial<Record<Form, string>>;
  forms: Form[];
}

const FORMATS: readonly Format[] = [
  {
    label: 'VS Code',
    detail: '"servers" of .vscode/mcp.json, or of the user mcp.json',
    key: 'servers',
    type: { stdio: 'stdio', http: 'http', header: 'http' },
    forms: ['stdio', 'http', 'header'],
  },
  {
    label: 'Claude Desktop / Claude Code',
    detail: '"mcpServers" of claude_desktop_config.json (stdio only there), or of .mcp.json / ~/.claude.json',
    key: 'mcpServers',
    type: { http: 'http', header: 'http' },
    forms: ['stdio', 'http', 'header'],
  },
  {
    label: 'Cursor',
    detail: '"mcpServers" of .cursor/mcp.json, or of ~/.cursor/mcp.json',
    key: 'mcpServers',
    type: { http: 'http', header: 'http' },
    forms: ['stdio', 'http', 'header'],
  },
  {
    label: 'Plain URL',
    detail: 'the endpoint for any client: the URL, or the URL and its Authorization header',
    type: {},
    forms: ['http', 'header'],
  },
];

/** The entry of one form for `profile`'s endpoint (undefined: the default one), before the format's
 *  "type"; undefined when the gateway cannot give it now. A profile's URL is the endpoint one segment
 *  further; with the secret in a header, /mcp/<profile>. */
function entryOf(
  form: Form,
  host: GatewayState,
  extensionPath: string,
  profile: string | undefined,
): { entry: Entry; note?: string } | undefined {
  const at = (url: string) => (profile ? `${url}/${profile}` : url);
  if (form === 'stdio') {
    const { command, args, note } = shimCommand(extensionPath);
    return { entry: { command, args: profile ? [...args, '--profile', profile] : args }, note };
  }
  if (!host.endpoint || !host.bareEndpoint) return undefined;
  if (form === 'http') return { entry: { url: at(host.endpoint) } };
  return host.secret
    ? { entry: { url: at(host.bareEndpoint), headers: { Authorization: `Bearer ${host.secret}` } } }
    : undefined;
}

/** Which endpoint: asked only where the running gateway's config has profiles, the default one first.
 *  null: the person dismissed the question. */
async function pickProfile(d: Pick<Deps, 'host' | 'window'>): Promise<string | undefined | null> {
  const profiles = d.host.gateway?.config.profiles;
  if (!profiles?.size) return undefined;
  const items = [
    { label: 'default', detail: 'The default endpoint: every server, as mcpx offers them', name: undefined },
    ...[...profiles.values()].map((p) => ({
      label: p.name,
      detail: `profile, ${p.mode}: ${[...p.servers.keys()].join(', ')}`,
      name: p.name,
    })),
  ];
  const pick = await d.window.showQuickPick(items, { title: 'mcpx: which profile?' });
  return pick ? pick.name : null;
}

const FORM_ITEMS: Record<Form, { label: string; detail: string }> = {
  stdio: {
    label: '$(terminal) stdio: the mcpx command',
    detail: 'The host starts `mcpx serve --transport stdio`, which joins this gateway. No secret in it.',
  },
  http: {
    label: '$(globe) Streamable HTTP: the URL with the secret in its path',
    detail: 'Contains the endpoint secret: treat it like a password.',
  },
  header: {
    label: '$(key) Streamable HTTP: the URL and an Authorization header',
    detail: 'Contains the endpoint secret: treat it like a password.',
  },
};

/** Resolves with the text copied, or undefined when nothing was. */
export const copyClientConfig = command(async (d): Promise<string | undefined> => {
  const { host, window } = d;
  const format = (
    await window.showQuickPick(
      FORMATS.map((f) => ({ label: f.label, detail: f.detail, f })),
      { title: 'mcpx: a client config for which host?' },
    )
  )?.f;
  if (!format) return undefined;
  const profile = await pickProfile(d);
  if (profile === null) return undefined;
  const offered = format.forms.flatMap((form) => {
    const e = entryOf(form, host, d.extensionPath, profile);
    return e ? [{ ...FORM_ITEMS[form], form, ...e }] : [];
  });
  if (offered.length === 0)
    return void window.showWarningMessage(
      `mcpx: the gateway is not running (${host.whyStopped}), so there is no endpoint to copy.`,
    );
  const pick = await window.showQuickPick(offered, {
    title: `mcpx: ${format.label}: how the host reaches the gateway`,
    placeHolder: host.endpoint ? undefined : `the HTTP forms need the gateway running (${host.whyStopped})`,
  });
  if (!pick) return undefined;
  const type = format.type[pick.form];
  const entry = type ? { type, ...pick.entry } : pick.entry;
  // A profile's entry has its own name, so a host's file can hold several side by side.
  const name = profile ? `mcpx-${profile}` : 'mcpx';
  const text = JSON.stringify(format.key ? { [format.key]: { [name]: entry } } : entry, null, 2);
  await d.clipboard.writeText(text);
  const what = format.key ? `a "${format.key}" entry for ${format.label}` : 'the endpoint';
  const warning =
    pick.form === 'stdio'
      ? pick.note
        ? ` Note: ${pick.note}.`
        : ''
      : host.secret
        ? ' It contains the endpoint secret: treat it like a password.'
        : '';
  void window.showInformationMessage(
    `mcpx: copied ${what} (${pick.form === 'stdio' ? 'stdio' : 'Streamable HTTP'}).${warning}`,
  );
  return text;
});
