// The Upstreams view: each server with its state, sign-in, revision and transport; its tools, prompts,
// resources and skills (SEP-2640) as children, a tool with the hints it gives about itself (toolTrust.ts)
// and Call Tool… on a click, a skill by its name with its URI and files. The row's context value keys the menus (package.json "menus": Restart, Stop, Sign In/Out, …).
import type * as vscode from 'vscode';
import type { GatewayFacade, SignInState, UpstreamStatus } from '../../gateway/editorPort';
import { describeSandbox } from '../../config/sandbox';
import { system } from '../../platform';
import type { JsonObject } from '../../protocol/jsonrpc';
import { skillFiles, skillName } from '../../protocol/skills';
import { EDITOR_IDENTITY } from '../editorCall';
import { type Disposable, Emitter } from '../lifetimes';
import type { GatewayState, Kit } from '../ports';
import type { RegistryUpdates } from '../registryUpdates';
import { trustCues } from '../toolTrust';

/** The mechanism a row's tooltip names (docs/platforms.md). */
const SANDBOX_NAME = { bubblewrap: 'bubblewrap', seatbelt: 'Seatbelt', none: 'none on this system' } as const;

type List = 'tools' | 'prompts' | 'resources' | 'skills';
const LISTS: readonly List[] = ['tools', 'prompts', 'resources', 'skills'];
/** What a row is known by: a skill by its URI (its name is not unique: SEP-2640 "Names"), else its name. */
const keyOf = (list: List, item: JsonObject) => String(list === 'skills' ? item.uri : item.name);
export type UpstreamNode =
  | {
      kind: 'server';
      name: string;
      state: string;
      detail: string;
      error?: string;
      signIn: SignInState;
      /** What its sandbox holds, when it has one (docs/security.md "The upstream sandbox"). */
      sandbox?: string;
      /** Installed from an MCP Registry: its name and version there, and a newer version when there is one. */
      registry?: { name: string; version: string; newer?: string };
    }
  | { kind: 'group'; server: string; list: List }
  /** `held`: the definition changed since it was pinned (or is new and held), listed in its pinned form
   *  or withheld (docs/gateway.md "Pins"). */
  | { kind: 'item'; server: string; list: List; item: JsonObject; held?: 'changed' | 'new' }
  | { kind: 'note'; text: string };

const STATE_ICON: Record<string, string> = {
  running: 'pass-filled',
  starting: 'loading~spin',
  failed: 'error',
  'needs-sign-in': 'account',
  stopped: 'circle-outline',
};

/** How a server's sign-in reads in the tree, and the suffix its menus key on (package.json "menus"). */
const SIGN_IN: Record<SignInState, { word?: string; context: string }> = {
  'signed-in': { word: 'signed in', context: '.signedIn' },
  'needs-sign-in': { word: 'needs sign-in', context: '.needsSignIn' },
  'signing-in': { word: 'signing in…', context: '' },
  'not-needed': { context: '' },
};

type TreeKit = Pick<Kit, 'TreeItem' | 'TreeItemCollapsibleState' | 'ThemeIcon'>;

export class UpstreamsTree implements vscode.TreeDataProvider<UpstreamNode>, Disposable {
  private readonly changed = new Emitter();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: Disposable[];

  constructor(
    private readonly host: GatewayState,
    private readonly kit: TreeKit,
    /** Which registry-installed servers have a newer version (registryUpdates.ts). */
    private readonly updates?: Pick<RegistryUpdates, 'newer' | 'refresh' | 'onDidChange'>,
  ) {
    this.subs = [
      host.onDidChange(() => this.changed.fire()),
      ...(updates ? [updates.onDidChange(() => this.changed.fire())] : []),
    ];
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }

  getTreeItem(n: UpstreamNode): vscode.TreeItem {
    const { TreeItem, TreeItemCollapsibleState: Collapsible } = this.kit;
    switch (n.kind) {
      case 'server': {
        const t = new TreeItem(n.name, Collapsible.Collapsed);
        t.description = n.detail;
        t.tooltip = [
          n.error ? `${n.name}: ${n.state} — ${n.error}` : `${n.name}: ${n.state}`,
          ...(n.sandbox ? [`Sandboxed (${SANDBOX_NAME[system.sandbox.kind]}): ${n.sandbox}`] : []),
          ...(n.registry
            ? [
                `From the MCP Registry: ${n.registry.name}@${n.registry.version}${n.registry.newer ? ` (${n.registry.newer} is out: Update)` : ''}`,
              ]
            : []),
        ].join('\n');
        t.iconPath = new this.kit.ThemeIcon(STATE_ICON[n.state] ?? 'circle-outline');
        t.contextValue = `mcpx.server.${n.state}${n.registry?.newer ? '.updatable' : ''}${SIGN_IN[n.signIn].context}`;
        t.id = `server:${n.name}`;
        return t;
      }
      case 'group': {
        const t = new TreeItem(n.list, Collapsible.Collapsed);
        t.id = `group:${n.server}:${n.list}`;
        return t;
      }
      case 'item':
        return n.held ? this.heldOf(n.server, n.list, n.item, n.held) : this.itemOf(n.server, n.list, n.item);
      case 'note':
        return new TreeItem(n.text, Collapsible.None);
    }
  }

  /** A tool, prompt, resource or skill; a tool with its hints, called on a click. */
  private itemOf(server: string, list: List, item: JsonObject): vscode.TreeItem {
    if (list === 'skills') return this.skillOf(item);
    const name = String(item.name ?? item.uri);
    const t = new this.kit.TreeItem(name, this.kit.TreeItemCollapsibleState.None);
    t.description = typeof item.title === 'string' ? item.title : undefined;
    t.tooltip = typeof item.description === 'string' ? item.description : name;
    t.contextValue = `mcpx.${list}`;
    if (list === 'tools') {
      t.command = { command: 'mcpx.callTool', title: 'Call Tool…', arguments: [server, name] };
      const cues = trustCues(item);
      t.description = [t.description, ...cues.words].filter(Boolean).join(' · ') || undefined;
      t.tooltip = [t.tooltip, '', ...cues.tooltip].join('\n');
      t.iconPath = new this.kit.ThemeIcon(cues.icon ?? 'tools');
    }
    return t;
  }

  /** A skill: its name, its SKILL.md URI, its description and files (as its server lists them). */
  private skillOf(item: JsonObject): vscode.TreeItem {
    const t = new this.kit.TreeItem(skillName(item), this.kit.TreeItemCollapsibleState.None);
    const front = (item.frontmatter ?? {}) as JsonObject;
    const files = skillFiles(item);
    t.description = String(item.uri);
    t.tooltip = [
      typeof front.description === 'string' ? front.description : String(item.uri),
      item.resources === 'dynamic'
        ? 'Its files are generated (no digests to check).'
        : `${files.length} file(s), ${files.reduce((n, f) => n + f.size, 0)} bytes, each checked against its SHA-256 when read.`,
    ].join('\n');
    t.iconPath = new this.kit.ThemeIcon('book');
    t.contextValue = 'mcpx.skills';
    return t;
  }

  /** A held tool, prompt or skill: marked, its tooltip saying how to review; Review in its context menu. */
  private heldOf(server: string, list: List, item: JsonObject, held: 'changed' | 'new'): vscode.TreeItem {
    const t = this.itemOf(server, list, item);
    const name = keyOf(list, item);
    t.description = held === 'new' ? 'held: new since pinned' : 'held: changed since pinned';
    t.tooltip = [
      `${server}/${name} is held: ${held === 'new' ? 'a new definition' : 'its definition changed since it was pinned'}; clients are not offered the new form, and a call of it is refused.`,
      'Review it (right-click → Review Held Tools…, or mcpx: Review Held Tools…) to see the diff and accept it.',
    ].join('\n');
    t.iconPath = new this.kit.ThemeIcon('warning');
    t.contextValue = `mcpx.${list}.held`;
    t.command = { command: 'mcpx.reviewHeldTools', title: 'Review Held Tools…', arguments: [server, name] };
    return t;
  }

  async getChildren(n?: UpstreamNode): Promise<UpstreamNode[]> {
    const g = this.host.gateway;
    if (!g) return [{ kind: 'note', text: `The gateway is not running: ${this.host.whyStopped}` }];
    if (!n) {
      // Empty, the view shows its welcome content (package.json viewsWelcome): what goes here, Add Server.
      this.updates?.refresh(g);
      return g.servers().map((s) => serverNode(s, g.signInState(s.name), registryOf(g, s.name, this.updates)));
    }
    if (n.kind === 'server') return LISTS.map((list) => ({ kind: 'group', server: n.name, list }));
    if (n.kind === 'group') {
      try {
        const items = await g.serverList(n.server, n.list, EDITOR_IDENTITY);
        const held = heldIn(g, n.server, n.list);
        // A held definition whose input changed is withheld from the list: its row is shown all the same.
        const withheld = [...held.keys()].filter((name) => !items.some((i) => keyOf(n.list, i) === name));
        const all = [...items, ...withheld.map((name) => ({ [n.list === 'skills' ? 'uri' : 'name']: name }))];
        return all.length
          ? all.map((item) => ({
              kind: 'item',
              server: n.server,
              list: n.list,
              item,
              held: held.get(keyOf(n.list, item)),
            }))
          : [{ kind: 'note', text: `no ${n.list}` }];
      } catch (e) {
        return [{ kind: 'note', text: (e as Error).message }];
      }
    }
    return [];
  }
}

/** The held definitions of a server's list, by name (tools, prompts and skills have pins; resources none). */
function heldIn(g: GatewayFacade, server: string, list: List): Map<string, 'changed' | 'new'> {
  if (list === 'resources') return new Map();
  const view = g.pinViews(server).find((v) => v.server === server);
  return new Map((view?.held ?? []).filter((h) => h.kind === list).map((h) => [h.name, h.reason]));
}

/** A registry-installed server's provenance, and the newer version the last check found. */
function registryOf(
  g: GatewayFacade,
  server: string,
  updates: Pick<RegistryUpdates, 'newer'> | undefined,
): { name: string; version: string; newer?: string } | undefined {
  const p = g.config.servers.find((d) => d.name === server)?.registry;
  if (!p) return undefined;
  const newer = updates?.newer(server);
  return { name: p.name, version: p.version, ...(newer ? { newer } : {}) };
}

/** A server's row: a server that waits for a sign-in shows that instead of "stopped" or "failed". */
function serverNode(
  s: UpstreamStatus,
  signIn: SignInState,
  registry?: { name: string; version: string; newer?: string },
): UpstreamNode {
  const state = signIn === 'needs-sign-in' && s.state !== 'running' ? 'needs-sign-in' : s.state;
  const detail = [
    s.state === 'failed' ? `failed: ${s.lastError ?? ''}` : state === 'needs-sign-in' ? undefined : s.state,
    SIGN_IN[signIn].word,
    s.revision,
    s.transport,
    s.sandbox ? 'sandboxed' : undefined,
    registry ? `v${registry.version}${registry.newer ? ` (update: ${registry.newer})` : ''}` : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  const sandbox = s.sandbox ? describeSandbox(s.sandbox) : undefined;
  return {
    kind: 'server',
    name: s.name,
    state,
    signIn,
    detail,
    error: s.lastError,
    ...(sandbox ? { sandbox } : {}),
    ...(registry ? { registry } : {}),
  };
}
