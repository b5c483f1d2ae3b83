// Held tool definitions in the editor (docs/gateway.md "Pins"): when a server's tools or prompts become
// held, a notification names the server and how many changed; Review opens VS Code's diff editor with the
// pinned and the new definition side by side (read-only documents of the mcpx-pins: scheme, the stable
// pretty JSON the gateway renders, its description wrapped), then Accept or Keep Held. Accepting goes
// through the gateway (acceptPins), which tells every client. The `vscode` API comes in through the ports
// below, so this runs against the fakes in plain Node too.
import type * as vscode from 'vscode';
import type { GatewayEvent, GatewayFacade, PinReview } from '../gateway/editorPort';
import { PIN_NOUN } from '../gateway/pins/store';
import { EDITOR_IDENTITY } from './editorCall';
import { type Disposable, type Lifetimes, disposable } from './lifetimes';
import type { EditorCommands, EditorWindow, GatewayRun } from './ports';

export const PINS_SCHEME = 'mcpx-pins';
const REVIEW = 'Review';
const KEEP = 'Keep Held';
const ACCEPT = 'Accept';
/** Only the newest documents are kept (each review makes two). */
const KEPT = 40;

type Window = Pick<EditorWindow, 'showWarningMessage' | 'showInformationMessage' | 'showQuickPick'>;

export interface PinsPorts {
  readonly window: Window;
  readonly commands: EditorCommands;
  /** A document of the mcpx-pins: scheme at this path (vscode.Uri.from in the host). */
  uri(path: string): vscode.Uri;
}

/** What was held, as one line: "2 tool definitions (a, b) and 1 prompt definition (greet)". */
export function heldSummary(e: { tools: string[]; prompts: string[]; apps?: string[]; skills?: string[] }): {
  count: number;
  text: string;
} {
  const apps = e.apps ?? [];
  const skills = e.skills ?? [];
  const part = (names: string[], what: string) =>
    names.length ? `${names.length} ${what} definition${names.length === 1 ? '' : 's'} (${names.join(', ')})` : '';
  const text = [part(e.tools, 'tool'), part(e.prompts, 'prompt'), part(apps, 'app'), part(skills, 'skill')]
    .filter(Boolean)
    .join(' and ');
  return { count: e.tools.length + e.prompts.length + apps.length + skills.length, text };
}

/** A shared server said its tools or prompts changed: listed now, so that the gateway compares them with
 *  their pins (it does whenever a list is fetched) and the person hears of a change at once, not at an
 *  agent's next listing. (A per-identity server's instances are listed by their own clients.) */
export async function compareNow(g: GatewayFacade, e: GatewayEvent): Promise<void> {
  if (e.type !== 'list.changed' || (e.list !== 'tools' && e.list !== 'prompts')) return;
  if (g.servers().find((s) => s.name === e.server)?.scope !== 'shared') return;
  await g.serverList(e.server, e.list, EDITOR_IDENTITY).catch(() => undefined);
}

export class HeldPins implements vscode.TextDocumentContentProvider, Disposable {
  private readonly docs = new Map<string, string>();
  private seq = 0;
  /** The notifications shown, their text (the editor suite reads them). */
  readonly announced: string[] = [];

  constructor(private readonly p: PinsPorts) {}

  /** Each gateway run's `pins.held` events announced. */
  watch(life: Lifetimes<GatewayRun>): void {
    life.perRun(({ gateway }) => [
      disposable(
        gateway.onEvent((e) => {
          void this.announce(gateway, e);
          void compareNow(gateway, e);
        }),
      ),
    ]);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.path) ?? '';
  }

  /** A `pins.held` event: the notification; Review opens the diff. Resolves with the button pressed. */
  async announce(g: GatewayFacade, e: GatewayEvent): Promise<string | undefined> {
    if (e.type !== 'pins.held') return undefined;
    const { count, text } = heldSummary(e);
    if (!count) return undefined;
    const message = `mcpx: ${e.server} has ${text} changed since pinned; held (not offered in the new form) until you review.`;
    this.announced.push(message);
    const pick = await this.p.window.showWarningMessage(message, REVIEW, KEEP);
    if (pick === REVIEW) await this.review(g, e.server);
    return pick;
  }

  /** Review a server's held definitions (or the one named): the diff editor, then Accept or Keep Held.
   *  Resolves with the names accepted. */
  async review(g: GatewayFacade, server: string, name?: string): Promise<string[]> {
    const reviews = g.pinReviews(server, name);
    if (!reviews.length) {
      void this.p.window.showInformationMessage(`mcpx: nothing of ${server} is held${name ? ` named ${name}` : ''}.`);
      return [];
    }
    const r = reviews.length === 1 ? reviews[0] : await this.choose(reviews);
    if (!r) return [];
    await this.showDiff(r);
    const what = `${PIN_NOUN[r.kind]} ${r.server}/${r.name}`;
    const pick = await this.p.window.showInformationMessage(
      r.reason === 'new'
        ? `mcpx: accept the new ${what}? It is offered once accepted.`
        : `mcpx: accept the changed ${what}? Clients are offered the new form once accepted.`,
      ACCEPT,
      KEEP,
    );
    if (pick !== ACCEPT) return [];
    const accepted = g.acceptPins(r.server, r.name);
    void this.p.window.showInformationMessage(
      `mcpx: accepted ${accepted.join(', ') || 'nothing (no longer held)'} of ${r.server}; its clients are told.`,
    );
    return accepted;
  }

  /** The held definition to review, of several. */
  private async choose(reviews: PinReview[]): Promise<PinReview | undefined> {
    const picked = await this.p.window.showQuickPick(
      reviews.map((r) => ({
        label: r.name,
        description: `${PIN_NOUN[r.kind]} · ${r.reason === 'new' ? 'new' : 'changed since pinned'}`,
        review: r,
      })),
      { title: `mcpx: the held definitions of ${reviews[0]!.server}` },
    );
    return picked?.review;
  }

  /** VS Code's diff editor: the pinned definition left, the new one right. */
  private async showDiff(r: PinReview): Promise<void> {
    const base = `/${r.server}/${r.kind}/${encodeURIComponent(r.name)}-${++this.seq}`;
    this.keep(`${base}.pinned.json`, r.pinned || '// not pinned before: a new definition\n');
    this.keep(`${base}.new.json`, r.current);
    await this.p.commands.executeCommand(
      'vscode.diff',
      this.p.uri(`${base}.pinned.json`),
      this.p.uri(`${base}.new.json`),
      `${r.server}/${r.name}: pinned ↔ new (held)`,
      { preview: true },
    );
  }

  private keep(path: string, text: string): void {
    this.docs.set(path, text);
    if (this.docs.size > KEPT) this.docs.delete(this.docs.keys().next().value!);
  }

  dispose(): void {
    this.docs.clear();
  }
}
