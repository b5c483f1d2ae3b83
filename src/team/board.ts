// What a team's replicas keep in the store for one another to find (docs/team.md): the questions waiting
// at each replica's broker (`question/<id>`, until it settles or its deadline), the artifacts each kept
// (`artifact/<id>`, until it expires), and the tasks of the others as `/v1/tasks` lists them.
import type { Question } from '../gateway/inbox/broker';
import type { ArtifactShelf, SharedArtifact } from '../gateway/shared';
import type { JsonObject } from '../protocol/jsonrpc';
import { type Store, parseJson } from '../store/store';

interface QuestionRecord {
  q: Question;
  replica: string;
  identity: string;
}

export class SharedQuestions {
  constructor(
    private readonly store: Store,
    private readonly replica: string,
    private readonly log: (line: string) => void,
  ) {}

  /** The broker's change, as compose.ts tells it: kept while it waits, gone when it settles. */
  told(event: 'asked' | 'settled', q: Question, identity: string): void {
    const key = `question/${q.id}`;
    const done =
      event === 'asked'
        ? this.store.set(key, JSON.stringify({ q, replica: this.replica, identity } satisfies QuestionRecord), {
            ttlMs: Math.max(1, q.deadline - Date.now()),
          })
        : this.store.del(key);
    void done.catch((e: Error) => this.log(`team: a question could not be shared through the store: ${e.message}`));
  }

  /** Every replica's questions waiting now, oldest first. */
  async list(): Promise<Question[]> {
    const out: Question[] = [];
    for (const key of await this.store.keys('question/')) {
      const r = parseJson<QuestionRecord>(await this.store.get(key));
      if (r?.q && typeof r.q.id === 'string') out.push(r.q);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** The replica whose broker holds question `id`. */
  async owner(id: string): Promise<string | undefined> {
    return parseJson<QuestionRecord>(await this.store.get(`question/${id}`))?.replica;
  }
}

export class SharedArtifacts implements ArtifactShelf {
  constructor(
    private readonly store: Store,
    private readonly log: (line: string) => void,
  ) {}

  put(a: SharedArtifact): void {
    void this.store
      .set(`artifact/${a.id}`, JSON.stringify(a), { ttlMs: Math.max(1, a.expiresAt - Date.now()) })
      .catch((e: Error) => this.log(`team: an artifact could not be kept in the store: ${e.message}`));
  }

  async get(id: string): Promise<SharedArtifact | undefined> {
    const a = parseJson<SharedArtifact>(await this.store.get(`artifact/${id}`));
    return a && typeof a.text === 'string' && typeof a.identity === 'string' ? a : undefined;
  }
}

/** The tasks other replicas run or ran for `identity` (every identity's for undefined), as /v1/tasks
 *  rows: never the identity itself. */
export async function tasksElsewhere(
  store: Store,
  replica: string,
  identity: string | undefined,
): Promise<JsonObject[]> {
  const rows: JsonObject[] = [];
  for (const key of await store.keys('task/')) {
    const r = parseJson<Record<string, unknown>>(await store.get(key));
    if (!r || r.replica === replica || (identity !== undefined && r.identity !== identity)) continue;
    const iso = (v: unknown) => (typeof v === 'number' ? new Date(v).toISOString() : null);
    rows.push({
      id: String(r.id),
      kind: 'task',
      label: typeof r.label === 'string' ? r.label : 'tools/call',
      client: typeof r.client === 'string' ? r.client : null,
      era: typeof r.era === 'string' ? r.era : 'modern',
      status: typeof r.status === 'string' ? r.status : 'working',
      statusMessage: typeof r.statusMessage === 'string' ? r.statusMessage : null,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      progress: null,
      replica: String(r.replica),
    });
  }
  return rows;
}
