// Add Server… → From the MCP Registry… (docs/registry.md "In the editor"): a QuickPick that searches the
// registry (registry.url) as the person types — name, description, how it runs, status — then the
// server's details, its status and look-alike names warned of, its inputs (a secret in a password box,
// kept in SecretStorage and referred to as ${secret:NAME}), the sandbox, the name and where to save it;
// then the install (its package fetched now, as headless) and the server started.
import type { GatewayFacade } from '../../gateway/facade';
import { printable } from '../../kit/printable';
import { RegistryCache } from '../../registry/cache';
import { howItRuns } from '../../registry/choice';
import { RegistryClient } from '../../registry/client';
import type { Need } from '../../registry/inputs';
import {
  type InstallRequest,
  type InstallResult,
  chosen,
  install,
  localNameOf,
  needsOf,
  screen,
} from '../../registry/install';
import type { RegistryEntry } from '../../registry/types';
import type { Deps } from './command';

/** How long typing must pause before the registry is asked. */
const DEBOUNCE_MS = 250;
/** The most servers one search lists (followed across the registry's pages). */
const MAX_ITEMS = 200;

type Item = { label: string; description?: string; detail?: string; entry?: RegistryEntry };

/** Registry text on one line, its control characters escaped (a publisher chose it). */
export const line = (s: string | undefined) => printable((s ?? '').replace(/\s+/g, ' ').slice(0, 200));

function itemOf(e: RegistryEntry): Item {
  const s = e.server;
  return {
    label: line(s.name),
    description: line(
      [s.version, howItRuns(s).join(', '), e.official.status !== 'active' ? e.official.status : '']
        .filter(Boolean)
        .join(' · '),
    ),
    detail: line(s.title ? `${s.title} — ${s.description ?? ''}` : s.description),
    entry: e,
  };
}

/** The QuickPick searching as the person types; resolves with the entry chosen. */
function searchPick(d: Deps, client: RegistryClient): Promise<RegistryEntry | undefined> {
  return new Promise((resolve) => {
    const qp = d.window.createQuickPick<Item>();
    qp.title = 'mcpx: add a server from the MCP Registry';
    qp.placeholder = `Search ${client.base} (a name or a word of its description)`;
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.ignoreFocusOut = true;
    let timer: NodeJS.Timeout | undefined;
    let asked = 0;
    let chosenEntry: RegistryEntry | undefined;
    // The pages of one search, followed up to MAX_ITEMS; a newer search stops an older one's.
    const search = async (query: string) => {
      const mine = ++asked;
      qp.busy = true;
      const found: RegistryEntry[] = [];
      let cursor: string | undefined;
      try {
        do {
          const page = await client.search(query.trim(), { cursor, limit: 100 });
          if (mine !== asked) return;
          found.push(...page.value.entries.filter((e) => e.official.status !== 'deleted'));
          qp.items = found.map(itemOf);
          if (page.stale) qp.placeholder = 'The registry could not be reached: what was cached (stale)';
          cursor = page.value.nextCursor;
        } while (cursor && found.length < MAX_ITEMS);
      } catch (e) {
        if (mine === asked) qp.items = [{ label: `$(error) ${line((e as Error).message)}` }];
      } finally {
        if (mine === asked) qp.busy = false;
      }
    };
    qp.onDidChangeValue((v) => {
      clearTimeout(timer);
      timer = setTimeout(() => void search(v), DEBOUNCE_MS);
    });
    qp.onDidAccept(() => {
      const e = qp.selectedItems[0]?.entry;
      if (!e) return;
      chosenEntry = e;
      qp.hide();
    });
    qp.onDidHide(() => {
      clearTimeout(timer);
      qp.dispose();
      resolve(chosenEntry);
    });
    qp.show();
    void search('');
  });
}

/** The details step: what it is and how it runs, and Install. */
async function details(d: Deps, e: RegistryEntry): Promise<boolean> {
  const s = e.server;
  const info: Item[] = [
    { label: `Status: ${e.official.status}`, detail: line(e.official.statusMessage ?? e.official.updatedAt) },
    ...(s.repository?.url ? [{ label: 'Repository', detail: line(s.repository.url) }] : []),
    ...(s.websiteUrl ? [{ label: 'Website', detail: line(s.websiteUrl) }] : []),
    ...(s.packages ?? []).map((p) => ({
      label: `Package: ${p.registryType}`,
      detail: line(`${p.identifier}${p.version ? `@${p.version}` : ''}`),
    })),
    ...(s.remotes ?? []).map((r) => ({ label: `Remote: ${r.type}`, detail: line(r.url) })),
  ];
  for (;;) {
    const pick = await d.window.showQuickPick<Item & { go?: boolean }>(
      [
        {
          label: `$(cloud-download) Install ${line(s.name)}@${line(s.version)}`,
          detail: line(s.description),
          go: true,
        },
        ...info,
      ],
      { title: `mcpx: ${line(s.title ?? s.name)} ${line(s.version)}`, ignoreFocusOut: true },
    );
    if (!pick) return false;
    if (pick.go) return true;
  }
}

/** One input asked: a choice in a QuickPick, else a box (a secret's a password box). */
async function ask(d: Deps, n: Need, server: string): Promise<string | undefined> {
  const title = `mcpx: ${server}: ${n.key}${n.secret ? ' (kept in SecretStorage)' : ''}`;
  if (n.choices?.length) {
    const p = await d.window.showQuickPick(
      n.choices.map((c) => ({ label: c, picked: c === n.default })),
      { title, placeHolder: line(n.description ?? n.where) },
    );
    return p?.label;
  }
  return d.window.showInputBox({
    title,
    prompt: line(`${n.where}${n.description ? ` — ${n.description}` : ''}`),
    value: n.secret ? undefined : n.default,
    placeHolder: n.placeholder,
    password: n.secret,
    ignoreFocusOut: true,
    validateInput: (v) => (n.required && !v ? `${n.key} is required` : undefined),
  });
}

/** The inputs, asked in turn; an optional one left empty takes its default. Undefined: the person stopped. */
async function inputs(d: Deps, needs: Need[], server: string): Promise<Map<string, string[]> | undefined> {
  const values = new Map<string, string[]>();
  for (const n of needs) {
    const v = await ask(d, n, server);
    if (v === undefined) return undefined;
    if (v !== '') values.set(n.key, [v]);
  }
  return values;
}

/** An install with its progress in a notification, its secrets in SecretStorage. */
export async function installWithProgress(
  d: Deps,
  req: InstallRequest,
  extraHosts: readonly string[],
): Promise<InstallResult> {
  const secrets = d.host.secrets;
  return await d.window.withProgress(
    { location: d.kit.ProgressLocation.Notification, title: `mcpx: installing ${req.local}` },
    (progress) =>
      install(req, {
        stateDir: d.registry.stateDir,
        secrets: {
          set: async (k, v) => {
            if (!secrets) throw new Error('no SecretStorage here to keep its secret in');
            await secrets.store(k, v);
          },
        },
        sandboxAvailable: () => d.registry.sandboxAvailable(),
        extraHosts,
        log: (l) => progress.report({ message: line(l) }),
        warn: (w) => void d.window.showWarningMessage(`mcpx: ${line(w)}`),
      }),
  );
}

/** What the person chose, up to the install; undefined when they stopped. */
export async function fromRegistry(
  d: Deps,
  g: GatewayFacade,
  name: (suggested: string) => Promise<string | undefined>,
): Promise<{ local: string; def: Record<string, unknown> } | undefined> {
  const client = new RegistryClient({
    url: g.settings.get<string>('registry.url'),
    timeoutMs: g.settings.duration('registry.timeout'),
    cache: RegistryCache.inState(d.registry.stateDir),
  });
  const entry = await searchPick(d, client);
  if (!entry || !(await details(d, entry))) return undefined;
  const extraHosts = g.settings.get<string[]>('registry.packageHosts');
  const warnings: string[] = [];
  try {
    if (entry.official.status === 'deprecated') {
      const go = await d.window.showWarningMessage(
        `mcpx: ${line(entry.server.name)}@${line(entry.server.version)} is deprecated${entry.official.statusMessage ? `: ${line(entry.official.statusMessage)}` : ''}.`,
        'Install Anyway',
      );
      if (go !== 'Install Anyway') return undefined;
    }
    await screen(client, entry, true, (w) => warnings.push(w));
    for (const w of warnings.filter((x) => !x.includes('deprecated')))
      void d.window.showWarningMessage(`mcpx: ${line(w)}`);
    const choice = chosen(entry, extraHosts);
    const local = await name(localNameOf(entry.server.name));
    if (!local) return undefined;
    const values = await inputs(d, needsOf(choice), entry.server.name);
    if (!values) return undefined;
    let sandbox = true;
    if (choice.kind === 'package' && choice.pkg.registryType !== 'oci') {
      const how = await d.window.showQuickPick(
        [
          {
            label: '$(shield) In a sandbox',
            detail:
              'reads its own files and the workspace; writes a private temporary folder; reaches only the hosts its server.json names (Linux, bubblewrap)',
            boxed: true,
          },
          { label: 'Without a sandbox', detail: 'it can read, write and reach whatever you can', boxed: false },
        ],
        { title: `mcpx: run ${local} in a sandbox?` },
      );
      if (!how) return undefined;
      sandbox = how.boxed;
    }
    const result = await installWithProgress(
      d,
      { client, entry, local, values, sandbox, yes: true, screened: true },
      extraHosts,
    );
    if (result.instructions.length)
      void d.window.showInformationMessage(
        `mcpx: ${local}: the publisher's instructions (shown, not run): ${line(result.instructions.join(' '))}`,
      );
    return { local, def: result.def };
  } catch (e) {
    // A refusal (InstallRefused), the registry's error, a failed fetch: each names its cause.
    void d.window.showErrorMessage(`mcpx: ${line((e as Error).message)}`);
    return undefined;
  }
}
