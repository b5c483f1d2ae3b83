// What a tool says about itself (its annotations) and what the person decided about calling it. The
// specification calls annotations untrusted hints: they are shown as the server's own words, and they
// only spare a confirmation for a tool that says it is read-only. The person's "always allow" is kept
// per workspace (workspaceState), so a server trusted in one project is not trusted in all of them.
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import type { EditorWindow, Memento } from './ports';

const HINTS = [
  { key: 'readOnlyHint', on: 'read-only', off: 'may change things', icon: 'eye' },
  { key: 'destructiveHint', on: 'destructive', off: 'not destructive', icon: 'warning' },
  { key: 'idempotentHint', on: 'idempotent', off: 'not idempotent', icon: 'sync' },
  { key: 'openWorldHint', on: 'reaches the outside world', off: 'closed world', icon: 'globe' },
] as const;

/** A tool's annotations as the Upstreams view shows them: a short description (the hints that are set),
 *  an icon for the strongest one, and tooltip lines marked as the server's own claims. */
export function trustCues(tool: JsonObject): { words: string[]; icon?: string; tooltip: string[] } {
  const a = isObject(tool.annotations) ? tool.annotations : {};
  const words: string[] = [];
  const tooltip: string[] = [];
  for (const h of HINTS) {
    if (typeof a[h.key] !== 'boolean') continue;
    const word = a[h.key] ? h.on : h.off;
    tooltip.push(`- ${word} (${h.key}: ${String(a[h.key])})`);
    if (a[h.key]) words.push(word);
  }
  const icon = a.destructiveHint === true ? 'warning' : a.readOnlyHint === true ? 'eye' : undefined;
  return {
    words,
    icon,
    tooltip: tooltip.length
      ? ['The server says (untrusted hints):', ...tooltip]
      : ['The server says nothing about this tool.'],
  };
}

/** Only a tool that says it is read-only is called without asking. */
const needsConfirmation = (tool: JsonObject): boolean =>
  !(isObject(tool.annotations) && tool.annotations.readOnlyHint === true);

const KEY = 'mcpx.toolTrust.allowed';
const ALLOW_ONCE = 'Allow once';
const ALLOW_ALWAYS = 'Always allow this tool';
const DECLINE = 'Decline';

/** The person's choices about calling tools from the palette, remembered per workspace. */
export class ToolTrust {
  constructor(
    /** workspaceState */
    private readonly state: Memento,
    private readonly window: Pick<EditorWindow, 'showQuickPick'>,
  ) {}

  private allowed(): string[] {
    return this.state.get<string[]>(KEY, []);
  }

  isAllowed(server: string, tool: string): boolean {
    return this.allowed().includes(`${server}/${tool}`);
  }

  /** Resolves true when the call may go: read-only by its own word, allowed before, or allowed now. */
  async confirm(server: string, tool: JsonObject, args: JsonObject): Promise<boolean> {
    const name = String(tool.name);
    if (!needsConfirmation(tool) || this.isAllowed(server, name)) return true;
    const cues = trustCues(tool);
    const said = cues.words.length ? cues.words.join(', ') : 'not read-only';
    const pick = await this.window.showQuickPick(
      [
        { label: ALLOW_ONCE, description: 'this call only' },
        { label: ALLOW_ALWAYS, description: 'in this workspace' },
        { label: DECLINE },
      ],
      {
        title: `mcpx: call ${name} on ${server}? The server says it is ${said}.`,
        placeHolder: `arguments: ${JSON.stringify(args)}`,
        ignoreFocusOut: true,
      },
    );
    if (pick?.label === ALLOW_ALWAYS) await this.state.update(KEY, [...this.allowed(), `${server}/${name}`]);
    return pick?.label === ALLOW_ONCE || pick?.label === ALLOW_ALWAYS;
  }

  /** Forgets every "always allow" of this workspace; returns how many there were. */
  async forget(): Promise<number> {
    const n = this.allowed().length;
    await this.state.update(KEY, undefined);
    return n;
  }
}
