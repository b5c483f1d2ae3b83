// The person, in the editor: the host port of the question router (src/gateway/questions.ts). A flat form
// elicitation becomes a multi-step InputBox/QuickPick flow with back, validation and defaults, ending in
// a review where every value can be changed and accept, decline or cancel is chosen (2025-11-25
// client/elicitation: the user can review, decline or cancel). URL elicitation shows the full URL and its
// host and opens it only on consent. A schema richer than flat goes to the webview form (webviewForm.ts).
// A question withdrawn or expired closes its widget with a notice.
import * as vscode from 'vscode';
import { type Field, flatFields, parseText, showValue } from '../forms/flat';
import { printable } from '../kit/printable';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import type { PersonPort } from '../gateway/facade';
import { choose } from './choose';
import { sampleInEditor } from './sampling';
import { FormWithdrawn, askInWebview } from './webviewForm';

class Withdrawn extends Error {}
const BACK = Symbol('back');

/** One widget at a time, closed when the question is withdrawn. */
function track<T extends vscode.QuickInput>(w: T, signal: AbortSignal, reject: (e: Error) => void): T {
  const onAbort = () => {
    w.hide();
    reject(new Withdrawn());
  };
  // Withdrawn before it could be shown: closed as soon as it opens.
  if (signal.aborted) queueMicrotask(onAbort);
  else signal.addEventListener('abort', onAbort, { once: true });
  w.onDidHide(() => signal.removeEventListener('abort', onAbort));
  return w;
}

function inputStep(
  f: Field,
  current: unknown,
  header: string,
  step: number,
  total: number,
  signal: AbortSignal,
): Promise<unknown | typeof BACK | undefined> {
  return new Promise((resolve, reject) => {
    const box = track(vscode.window.createInputBox(), signal, reject);
    box.title = header;
    box.step = step;
    box.totalSteps = total;
    box.prompt = `${f.title}${f.required ? '' : ' (optional)'}${f.description ? ` — ${f.description}` : ''}`;
    box.value = current === undefined ? '' : String(current);
    box.buttons = step > 1 ? [vscode.QuickInputButtons.Back] : [];
    box.ignoreFocusOut = true;
    let done = false;
    box.onDidTriggerButton(() => ((done = true), box.hide(), resolve(BACK)));
    box.onDidChangeValue((v) => {
      const r = parseText(f, v);
      box.validationMessage = 'error' in r ? r.error : undefined;
    });
    box.onDidAccept(() => {
      const r = parseText(f, box.value);
      if ('error' in r) return void (box.validationMessage = r.error);
      done = true;
      box.hide();
      resolve(r.value);
    });
    box.onDidHide(() => {
      if (!done) resolve(undefined);
      box.dispose();
    });
    box.show();
  });
}

interface Item extends vscode.QuickPickItem {
  value: string;
}

function pickStep(
  f: Field,
  current: unknown,
  header: string,
  step: number,
  total: number,
  signal: AbortSignal,
): Promise<unknown | typeof BACK | undefined> {
  return new Promise((resolve, reject) => {
    const qp = track(vscode.window.createQuickPick<Item>(), signal, reject);
    qp.title = header;
    qp.step = step;
    qp.totalSteps = total;
    qp.placeholder = `${f.title}${f.required ? '' : ' (optional)'}${f.description ? ` — ${f.description}` : ''}`;
    qp.ignoreFocusOut = true;
    qp.buttons = step > 1 ? [vscode.QuickInputButtons.Back] : [];
    const options =
      f.kind === 'boolean'
        ? [
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]
        : f.options!;
    qp.canSelectMany = f.kind === 'multi';
    qp.items = options.map((o) => ({
      label: o.label,
      value: o.value,
      description: o.label !== o.value ? o.value : undefined,
    }));
    const cur = current === undefined ? [] : Array.isArray(current) ? current.map(String) : [String(current)];
    if (f.kind === 'multi') qp.selectedItems = qp.items.filter((i) => cur.includes(i.value));
    else qp.activeItems = qp.items.filter((i) => cur.includes(i.value));
    let done = false;
    qp.onDidTriggerButton(() => ((done = true), qp.hide(), resolve(BACK)));
    qp.onDidAccept(() => {
      const chosen = f.kind === 'multi' ? qp.selectedItems : qp.activeItems;
      if (f.kind !== 'multi' && chosen.length === 0) return;
      done = true;
      qp.hide();
      if (f.kind === 'multi') resolve(chosen.map((i) => i.value));
      else if (f.kind === 'boolean') resolve(chosen[0]!.value === 'true');
      else resolve(chosen[0]!.value);
    });
    qp.onDidHide(() => {
      if (!done) resolve(undefined);
      qp.dispose();
    });
    qp.show();
  });
}

function step(f: Field, current: unknown, header: string, i: number, total: number, signal: AbortSignal) {
  return f.kind === 'string' || f.kind === 'number' || f.kind === 'integer'
    ? inputStep(f, current, header, i, total, signal)
    : pickStep(f, current, header, i, total, signal);
}

/** The review: every value shown, each one editable; accept, decline or cancel. */
function review(
  fields: Field[],
  values: Record<string, unknown>,
  header: string,
  signal: AbortSignal,
): Promise<{ edit: Field } | { action: 'accept' | 'decline' | 'cancel' } | undefined> {
  return new Promise((resolve, reject) => {
    const qp = track(
      vscode.window.createQuickPick<vscode.QuickPickItem & { act?: 'accept' | 'decline' | 'cancel'; field?: Field }>(),
      signal,
      reject,
    );
    qp.title = header;
    qp.placeholder = 'Review (pick a value to change it), then accept, decline or cancel';
    qp.ignoreFocusOut = true;
    const missing = fields.filter((f) => f.required && values[f.key] === undefined);
    qp.items = [
      ...(missing.length
        ? []
        : [{ label: '$(check) Accept', description: 'send these values', act: 'accept' as const }]),
      { label: '$(close) Decline', description: 'say no to the request', act: 'decline' as const },
      { label: '$(circle-slash) Cancel', description: 'dismiss without choosing', act: 'cancel' as const },
      { label: 'Values', kind: vscode.QuickPickItemKind.Separator },
      ...fields.map((f) => ({
        label: `$(edit) ${f.title}`,
        description: showValue(f, values[f.key]),
        detail: f.description,
        field: f,
      })),
    ];
    let done = false;
    qp.onDidAccept(() => {
      const it = qp.activeItems[0];
      if (!it) return;
      done = true;
      qp.hide();
      resolve(it.field ? { edit: it.field } : { action: it.act! });
    });
    qp.onDidHide(() => {
      if (!done) resolve(undefined);
      qp.dispose();
    });
    qp.show();
  });
}

/** Undefined: dismissed without choosing (Escape, or the widget closed) — the question stays pending. */
async function askForm(
  server: string,
  params: JsonObject,
  fields: Field[],
  signal: AbortSignal,
  client?: string,
): Promise<JsonObject | undefined> {
  const message = String(params.message ?? '');
  // The message names who asks (routeQuestion rewrote it: "<server> (via mcpx) asks: …").
  const header = `${message || `${server} (via mcpx) asks`}${client ? ` — for ${client}` : ''}`;
  const values: Record<string, unknown> = {};
  for (const f of fields) if (f.default !== undefined) values[f.key] = f.default;
  // First pass: field by field, with back.
  for (let i = 0; i < fields.length; ) {
    const f = fields[i]!;
    const v = await step(f, values[f.key], header, i + 1, fields.length, signal);
    if (v === BACK) {
      i = Math.max(0, i - 1);
      continue;
    }
    if (v === undefined && f.required) return undefined;
    if (v === undefined) delete values[f.key];
    else values[f.key] = v;
    i++;
  }
  for (;;) {
    const r = await review(fields, values, header, signal);
    if (!r) return undefined;
    if ('action' in r)
      return r.action === 'accept' ? { action: 'accept', content: values as JsonObject } : { action: r.action };
    const v = await step(r.edit, values[r.edit.key], header, 1, 1, signal);
    if (v !== BACK && v !== undefined) values[r.edit.key] = v;
  }
}

/** Resolves true when the upstream says the URL elicitation's step is complete, false when it never
 *  does before `signal` ends. */
export type WaitComplete = (server: string, elicitationId: string, signal: AbortSignal) => Promise<boolean>;

async function askUrl(
  server: string,
  params: JsonObject,
  signal: AbortSignal,
  waitComplete?: WaitComplete,
  done?: (id: string) => void,
): Promise<JsonObject | undefined> {
  const url = String(params.url ?? '');
  let host = '';
  try {
    host = new URL(url).host;
  } catch {
    return { action: 'decline' };
  }
  // The full URL and its host are shown; the page opens only on consent (2025-11-25 client/elicitation, URL mode).
  const open = `Open ${host} in the browser`;
  const choice = await choose(
    `${server} (via mcpx) asks you to open a page on ${host}`,
    String(params.message ?? ''),
    [open, 'Decline', 'Cancel'],
    [{ label: host, detail: url }],
    signal,
  );
  if (signal.aborted) throw new Withdrawn();
  if (choice === 'Decline') return { action: 'decline' };
  if (choice === 'Cancel') return { action: 'cancel' };
  if (choice !== open) return undefined;
  // The person consented here; if the editor cannot open the page (or its own confirmation is refused),
  // the URL is offered to copy, and the consent still stands.
  const opened = await Promise.resolve(vscode.env.openExternal(vscode.Uri.parse(url))).catch(() => false);
  if (!opened) {
    void vscode.window
      .showWarningMessage(`mcpx: the page on ${host} could not be opened from the editor: ${url}`, 'Copy URL')
      .then((c) => c && vscode.env.clipboard.writeText(url));
  }
  // Accept goes back at once (the consent); the editor then waits, visibly, for the upstream to say the
  // step on the page is complete (notifications/elicitation/complete, 2025-11-25).
  const id = params.elicitationId;
  if (waitComplete && typeof id === 'string') {
    // Listening starts now, before the answer goes back: the completion may follow it at once.
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), 10 * 60_000);
    const waiting = waitComplete(server, id, ctl.signal);
    void vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `mcpx: waiting for ${server} to finish the step on ${host}`,
        cancellable: true,
      },
      async (_p, token) => {
        token.onCancellationRequested(() => ctl.abort());
        const complete = await waiting;
        clearTimeout(timer);
        if (complete) {
          done?.(id);
          void vscode.window.showInformationMessage(`mcpx: ${server} finished the step on ${host}.`);
        }
      },
    );
  }
  return { action: 'accept' };
}

/** The person port, and how many questions it has open now (the editor tests wait on it). */
export function editorPerson(
  log: (line: string) => void,
  extensionUri: vscode.Uri,
  waitComplete?: WaitComplete,
): PersonPort & { open(): number; completed: string[] } {
  let open = 0;
  /** URL elicitations whose completion the editor saw (newest last, a few kept). */
  const completed: string[] = [];
  const done = (id: string) => {
    completed.push(id);
    if (completed.length > 20) completed.shift();
  };
  return {
    open: () => open,
    completed,
    can(method, params) {
      // Sampling with tools too (2025-11-25 sampling.tools): through the API's tool calling (samplingRequest.ts).
      if (method === 'sampling/createMessage') return typeof vscode.lm?.selectChatModels === 'function';
      if (method !== 'elicitation/create') return false;
      if (params.mode === 'url') return typeof params.url === 'string';
      return isObject(params.requestedSchema) && params.requestedSchema.type === 'object';
    },
    async ask(q, signal) {
      if (signal.aborted) throw new Withdrawn();
      open++;
      try {
        if (q.method === 'sampling/createMessage') return await sampleInEditor(q.server, q.params, signal);
        if (q.params.mode === 'url') return await askUrl(q.server, q.params, signal, waitComplete, done);
        // A flat schema: the QuickPick flow; anything richer: the webview form.
        const fields = flatFields(q.params.requestedSchema);
        if (fields) return await askForm(q.server, q.params, fields, signal, q.client);
        return await askInWebview(
          extensionUri,
          String(q.params.message ?? `${q.server} (via mcpx) asks`),
          q.params.requestedSchema as JsonObject,
          signal,
        );
      } catch (e) {
        if (e instanceof Withdrawn || e instanceof FormWithdrawn) {
          // Why, where the upstream said (its notifications/cancelled reason): the signal's reason names it.
          const why = signal.reason instanceof Error ? ` (${printable(signal.reason.message)})` : '';
          void vscode.window.showInformationMessage(`mcpx: the question of ${q.server} was withdrawn${why}.`);
          log(`[${q.server}] question withdrawn while shown${why}`);
        }
        throw e;
      } finally {
        open--;
      }
    },
  };
}
