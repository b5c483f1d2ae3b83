// The editor's Approver (docs/gateway.md "Permissions", "In the editor"): a call an `ask` rule holds
// waits on a QuickPick that names the client (its declared name — untrusted — and its identity), the
// server, the tool, prompt or resource, and how the call came (an mcpx_exec run says which), with the
// arguments folded and the whole of them one pick away, and the tool's annotations as the server's
// untrusted hints. One prompt at a time: a second QuickPick would close the first. The call's signal
// (its cancellation, or permissions.askTimeout) closes the prompt, and a call waiting its turn whose
// signal ends is never shown. Escape denies this call (nothing is remembered): an agent may ask again.
import type { CancellationToken } from 'vscode';
import {
  APPROVAL_VERBS,
  type ApprovalAnswer,
  type ApprovalRequest,
  type Approver,
} from '../../gateway/permissions/approval';
import type { JsonObject } from '../../protocol/jsonrpc';
import type { EditorWindow } from '../ports';
import { trustCues } from '../toolTrust';

export interface ApproverDeps {
  readonly window: Pick<EditorWindow, 'showQuickPick'>;
  /** Shows a value as a read-only JSON document. */
  showJson(title: string, value: JsonObject): Promise<void>;
}

interface Choice {
  label: string;
  description?: string;
  detail?: string;
  answer?: ApprovalAnswer;
}

/** A string longer than this is folded in the prompt. */
const FOLD = 60;
/** The folded arguments' length at most. */
const SHOWN = 400;
const SHOW_ALL = 'Show the whole arguments';

/** The arguments on one line: long strings folded, deep values elided, the whole cut. */
export function foldArguments(args: JsonObject): string {
  const fold = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return v.length > FOLD ? `${v.slice(0, FOLD)}…(${v.length} chars)` : v;
    if (v === null || typeof v !== 'object') return v;
    if (depth > 2) return Array.isArray(v) ? `[…${v.length}]` : '{…}';
    if (Array.isArray(v)) return v.map((x) => fold(x, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fold(x, depth + 1)]));
  };
  const text = JSON.stringify(fold(args, 0));
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text;
}

const VIA: Record<ApprovalRequest['path'], string> = {
  'pass-through': '',
  mcpx_call: ' through mcpx_call',
  mcpx_exec: ' in an mcpx_exec script',
  palette: ' from the palette',
  editor: ' from the editor',
  'http-api': ' through the HTTP API',
};

/** Who asks, as the person reads it: the declared name is the client's own word, the identity mcpx's. */
function clientLabel(c: ApprovalRequest['client']): string {
  return c.name ? `"${c.name}" (${c.identity})` : c.identity;
}

/** What the prompt says: its title, its placeholder (the arguments and the hints), and the choices. */
export function approvalPrompt(r: ApprovalRequest): { title: string; placeHolder: string; choices: Choice[] } {
  const via = r.path === 'mcpx_exec' && r.run ? ` in mcpx_exec run ${r.run}` : VIA[r.path];
  const title = `mcpx: ${clientLabel(r.client)} wants to ${APPROVAL_VERBS[r.kind]} ${r.server}/${r.target}${via} (${r.rule})`;
  const [said = '', ...hints] = trustCues({ annotations: r.annotations ?? {} }).tooltip;
  const cues =
    r.kind === 'tool' ? `${said}${hints.length ? ` ${hints.map((l) => l.slice(2)).join(', ')}` : ''} · ` : '';
  const who = r.client.name ?? r.client.identity;
  const folded = foldArguments(r.arguments);
  return {
    title,
    // The hints first: the arguments are also the last choice's second line, where they have room.
    placeHolder: `${cues}arguments: ${folded}`,
    choices: [
      { label: 'Allow once', description: 'this call only', answer: 'once' },
      { label: `Allow ${r.target} for ${who} until the gateway stops`, answer: 'session' },
      {
        label: 'Always allow',
        description: 'in this workspace (mcpx: Manage Permissions revokes it)',
        answer: 'always',
      },
      {
        label: 'Deny',
        // permissions.askTimeout: unanswered, the call is denied then (docs/gateway.md "Permissions").
        description: `the agent is told it was refused (so is it, unanswered, in ${Math.max(0, Math.round((r.deadline - Date.now()) / 1000))} s)`,
        answer: 'deny',
      },
      { label: SHOW_ALL, description: 'a read-only JSON document', detail: folded },
    ],
  };
}

/** A CancellationToken over an AbortSignal, as showQuickPick takes one (VS Code reads these two members). */
function tokenOf(signal: AbortSignal): CancellationToken {
  return {
    get isCancellationRequested() {
      return signal.aborted;
    },
    onCancellationRequested(listener: (e: unknown) => unknown) {
      signal.addEventListener('abort', listener, { once: true });
      return { dispose: () => signal.removeEventListener('abort', listener) };
    },
  };
}

const ended = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('the call ended before it was answered');

export class EditorApprover implements Approver {
  /** The prompt shown, then the next: one QuickPick at a time. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly d: ApproverDeps) {}

  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const mine = this.turn.then(() => this.prompt(request, signal));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  private async prompt(r: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const { title, placeHolder, choices } = approvalPrompt(r);
    for (;;) {
      if (signal.aborted) throw ended(signal);
      const pick = await this.d.window.showQuickPick(
        choices,
        { title, placeHolder, ignoreFocusOut: true, matchOnDescription: false },
        tokenOf(signal),
      );
      if (signal.aborted) throw ended(signal);
      if (!pick) return 'deny';
      if (pick.answer) return pick.answer;
      await this.d.showJson(`${r.server} · ${r.target} arguments`, r.arguments);
    }
  }
}
