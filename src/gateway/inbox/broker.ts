// The broker: questions nobody on the wire could take (no calling client that declared the capability,
// or an ambiguous attribution) wait here for any answerer until their deadline. Expiry answers
// `cancel`, never `decline`: dismissed without choosing is not refused (docs/protocol.md "A question nobody chose an answer for").
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Counts } from '../../kit/counts';
import { BoundedStore } from '../../kit/store';
import { CODES, McpxError, ProtocolError } from '../../protocol/errors';
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import { schemaMismatch } from '../../kit/schema';

/** elicit.ttl: a question's own deadline (a built-in, not a user setting). */
const ELICIT_TTL_MS = 120_000;

export interface Question {
  id: string;
  server: string;
  method: string;
  params: JsonObject;
  createdAt: number;
  deadline: number;
  /** Why it is here rather than with the calling client. */
  reason: string;
}

interface Pending {
  q: Question;
  resolve(r: JsonObject): void;
  reject(e: Error): void;
}

/** A question of the broker's own kind: the person's approval of a call a permission rule holds
 *  (gateway/permissions/brokerApprover.ts; docs/gateway.md "Permissions"). */
export const APPROVAL_METHOD = 'mcpx/approval';
/** What an approval may be answered; `allow` is `once`. */
const APPROVAL_ANSWERS = ['allow', 'once', 'session', 'always', 'deny'] as const;

/** Bytes of text one token of a sampled answer may stand for, at most: mcpx counts no tokens, so it refuses
 *  only an answer far past maxTokens (a token of the tokenizers in use is a few bytes, never this many). */
const BYTES_PER_TOKEN = 128;

/** Why a sampling answer cannot go upstream: the role and content every revision's CreateMessageResult
 *  requires (2026-07-28 client/sampling: messages MUST contain a role and a content field), a model named,
 *  and no more text than maxTokens could hold (the client MUST respect maxTokens). */
function samplingProblem(params: JsonObject, result: JsonObject): string | undefined {
  if (result.role !== 'assistant' && result.role !== 'user') return 'role must be "assistant" or "user"';
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  if (!blocks.length || !blocks.every((b) => isObject(b) && typeof b.type === 'string'))
    return 'content must be a content block, or a non-empty array of them';
  if (typeof result.model !== 'string') return 'model must name the model that sampled';
  const max = typeof params.maxTokens === 'number' ? params.maxTokens : undefined;
  const bytes = blocks.reduce<number>((n, b) => {
    const o = b as JsonObject;
    return (
      n +
      Buffer.byteLength(
        typeof o.text === 'string' ? o.text : o.type === 'tool_use' ? JSON.stringify(o.input ?? {}) : '',
      )
    );
  }, 0);
  if (max !== undefined && bytes > max * BYTES_PER_TOKEN)
    return `the answer's ${bytes} bytes of text cannot be within maxTokens (${max})`;
  return undefined;
}

/** Why an answer cannot go upstream, or undefined when it can: an elicitation's action must be one of
 *  the three, and accepted content must match the requested schema; a sampling's, a role, content and a
 *  model within maxTokens; an approval's, one of its answers. */
export function answerProblem(method: string, params: JsonObject, result: JsonObject): string | undefined {
  if (method === APPROVAL_METHOD)
    return (APPROVAL_ANSWERS as readonly unknown[]).includes(result.action)
      ? undefined
      : `action must be one of ${APPROVAL_ANSWERS.join(', ')}`;
  if (method === 'sampling/createMessage') return samplingProblem(params, result);
  if (method !== 'elicitation/create') return undefined;
  const action = result.action;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel')
    return 'action must be accept, decline or cancel';
  if (action === 'accept' && isObject(params.requestedSchema)) {
    const bad = schemaMismatch(params.requestedSchema, result.content ?? {});
    if (bad) return `the answer does not match the requested schema: ${bad}`;
  }
  return undefined;
}

/** How many questions wait here: per identity, and in total. */
export interface BrokerLimits {
  perIdentity: number;
  total: number;
}

export class Broker {
  /** The questions waiting, on the one bounded store (kit/store.ts): at a bound a new one is refused. */
  private readonly pending: BoundedStore<Pending>;
  /** Questions shown to the person now, per identity (gateway/inbox/questions.ts). */
  private readonly shown = new Counts();

  constructor(
    /** A question's deadline here, and at the person before it comes here (gateway/inbox/questions.ts). */
    readonly ttlMs: number = ELICIT_TTL_MS,
    /** <state>/questions: each pending question stored owner-only, removed when it settles. */
    private readonly dir: string | undefined,
    private readonly onChange: ((event: 'asked' | 'settled', q: Question, identity: string) => void) | undefined,
    /** limits.questionsPerIdentity and, for the broker as a whole, limits.inflight (docs/security.md "Bounds"). */
    private readonly limits: () => BrokerLimits,
  ) {
    const refused = (p: Pending, why: string) =>
      new McpxError('bound.questions', `${p.q.method} from ${p.q.server} refused: ${why}`);
    this.pending = new BoundedStore<Pending>({
      bounds: limits,
      refuse: {
        total: (n, p) => refused(p, `${n} questions are already waiting (limits.inflight)`),
        perIdentity: (n, p) =>
          refused(p, `${n} questions for this client are already waiting (limits.questionsPerIdentity)`),
      },
    });
  }

  private store(q: Question): void {
    if (!this.dir) return;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(this.dir, `${q.id}.json`), JSON.stringify(q, null, 2), { mode: 0o600 });
  }

  private prune(q: Question): void {
    if (this.dir) rmSync(join(this.dir, `${q.id}.json`), { force: true });
  }

  list(): Question[] {
    return this.pending.values().map((p) => p.q);
  }

  /** Hold a question until it is answered, withdrawn (signal) or expires. `identity` is the asking
   *  call's (CallContext.identity), or the upstream's where no call owns it; at a bound the question is
   *  refused at once (-32603 naming the setting), and nothing already waiting is dropped for it. */
  ask(a: {
    server: string;
    method: string;
    params: JsonObject;
    signal: AbortSignal;
    /** Why it waits here (no answerer on the wire took it). */
    reason: string;
    identity?: string;
    /** Its own deadline, where it has one shorter or longer than elicit.ttl (an approval's
     *  permissions.askTimeout). */
    ttlMs?: number;
  }): Promise<JsonObject> {
    const { server, method, params, signal, reason, identity = `upstream:${server}`, ttlMs = this.ttlMs } = a;
    const now = Date.now();
    const q: Question = {
      id: randomUUID(),
      server,
      method,
      params,
      createdAt: now,
      deadline: now + ttlMs,
      reason,
    };
    return new Promise<JsonObject>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () =>
        settle(() => reject(signal.reason instanceof Error ? signal.reason : new Error('withdrawn')));
      const settle = (fn: () => void) => {
        if (this.pending.delete(q.id) === undefined) return;
        this.prune(q);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.onChange?.('settled', q, identity);
        fn();
      };
      try {
        this.pending.add(q.id, identity, {
          q,
          resolve: (r) => settle(() => resolve(r)),
          reject: (e) => settle(() => reject(e)),
        });
      } catch (e) {
        return reject(e); // at a bound (naming the setting); nothing waiting is dropped for it
      }
      // A question withdrawn before it is put starts nothing: no timer, no entry.
      if (signal.aborted) {
        this.pending.delete(q.id);
        return reject(signal.reason);
      }
      timer = setTimeout(() => {
        // Expiry: elicitation is answered cancel; anything else has no such answer and fails.
        if (method === 'elicitation/create') settle(() => resolve({ action: 'cancel' }));
        else
          settle(() =>
            reject(
              new ProtocolError(CODES.InternalError, `nobody answered ${method} from ${server} before its deadline`),
            ),
          );
      }, ttlMs);
      timer.unref();
      signal.addEventListener('abort', onAbort, { once: true });
      this.store(q);
      this.onChange?.('asked', q, identity);
    });
  }

  /** Room to show one more question of `identity` to the person: the same bounds as questions waiting
   *  here (limits.questionsPerIdentity, limits.inflight), so an upstream that asks a hundred questions at
   *  once does not open a hundred forms in the editor. Its release, or undefined when there is none: the
   *  question then comes here, where it waits or is refused. */
  showing(identity: string): (() => void) | undefined {
    const { perIdentity, total } = this.limits();
    if (this.shown.get(identity) >= perIdentity || this.shown.total >= total) return undefined;
    this.shown.add(identity);
    let done = false;
    return () => {
      if (!done) this.shown.remove(identity);
      done = true;
    };
  }

  /** Answer a question. An elicitation's accepted content is checked against the requested schema
   *  first: an invalid answer is refused with the reason, not forwarded. Returns the refusal, if any. */
  answer(id: string, result: JsonObject): string | undefined {
    const p = this.pending.get(id);
    if (!p) return `no pending question ${id} (answered, withdrawn or expired)`;
    const bad = answerProblem(p.q.method, p.q.params, result);
    if (bad) return bad;
    p.resolve(result);
    return undefined;
  }

  /** Every pending question is withdrawn (the gateway is stopping). */
  close(): void {
    for (const p of this.pending.values()) p.reject(new Error('the gateway is stopping'));
  }
}
