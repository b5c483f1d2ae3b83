// What the upstreams send mcpx without being asked: their questions (one function answers them in both
// eras — a legacy wire request, or a 2026-07-28 input_required through Calls), their notifications (a
// legacy push, or a 2026-07-28 listen stream), and — from the pool — their state changes. Each goes to
// the caches, the calls in flight, the subscriptions and the event stream.
//
// It is built last (compose.ts), given every part it feeds; the pool reaches it through its hooks.
import { redactValue } from '../../config/redact';
import type { ServerDef } from '../../config/servers';
import type { JsonObject, Notification } from '../../protocol/jsonrpc';
import { isLogLevel } from '../../protocol/meta';
import type { ListKind, UnrelatedLog } from '../../server/provider';
import type { ClientHooks } from '../../upstream/client';
import type { UpstreamStatus } from '../../upstream/pool';
import type { Calls } from '../call/inFlight';
import { type Catalogue, INVALIDATES } from '../catalogue/catalogue';
import type { EventBus } from '../events';
import type { Asked, UrlQuestions } from './questions';
import { Coalescer, LOG_MESSAGES, Rate } from '../call/progress';
import type { Subscriptions } from './subscriptions';
import { prepareValidation } from '../../kit/schema';
import { entryKey } from '../../upstream/pool';

/** What the inbox feeds, and how it asks and announces. */
export interface InboxDeps {
  events: EventBus;
  catalogue: Catalogue;
  calls: Calls;
  subscriptions: Subscriptions;
  /** A question on its way to its answerer (routeQuestion, with the gateway's answerers). */
  ask(q: Asked): Promise<JsonObject>;
  /** Announce a list change to the gateway's own clients (Provider.onListChanged). */
  changed(kind: ListKind, server: string): void;
  /** URL questions given to clients, whose completion is relayed to them. */
  urls: UrlQuestions;
  /** A log message that relates to no call: to the clients' push streams (Provider.onLog). */
  unrelatedLog(entry: UnrelatedLog): void;
  log(line: string): void;
}

export class UpstreamInbox {
  /** List changes and resource updates, passed on at most once an interval each (relay.ts). */
  private readonly changes = new Coalescer();
  /** Log messages each upstream connection may still send this second, and what was dropped. */
  private readonly logRates = new Map<string, { rate: Rate; timer?: NodeJS.Timeout }>();

  constructor(private readonly d: InboxDeps) {}

  /** The hooks of one upstream connection (the pool's PoolOptions.hooks). */
  hooks(def: ServerDef, scope: string): ClientHooks {
    return {
      // One function answers an upstream's questions in both eras (2025-11-25 client/elicitation,
      // client/sampling, client/roots; 2026-07-28 input_required through Calls.request).
      onRequest: (method, params, signal) =>
        this.d.ask({
          server: def.name,
          method,
          params,
          signal,
          conn: entryKey(def.name, scope),
          ...this.d.calls.owner(def.name, scope, method, params),
        }),
      onNotification: (n, related) => this.notified(def.name, scope, n, def, related),
      log: this.d.log,
    };
  }

  /** An upstream changed state (the pool's PoolOptions.onStateChange). */
  state(st: UpstreamStatus): void {
    const { catalogue, subscriptions } = this.d;
    this.d.events.emit({
      type: 'server.state',
      server: st.name,
      state: st.state,
      ...(st.lastError && (st.state === 'failed' || st.state === 'needs-sign-in') ? { error: st.lastError } : {}),
    });
    if (st.state === 'stopped' || st.state === 'failed') this.logRates.delete(entryKey(st.name, st.scope));
    // A (re)started upstream may offer other lists than the one before it.
    if (st.state === 'starting') {
      catalogue.invalidate(st.name);
      // Its tools' arguments are checked soon: the validator is built while the process starts.
      setImmediate(prepareValidation);
    }
    subscriptions.onState(st);
  }

  /** What an upstream sends unasked (legacy push, or a 2026-07-28 listen stream): caches, relays, events. */
  notified(server: string, scope: string, n: Notification, def: ServerDef, related?: object): void {
    const { events, changed, catalogue, calls, subscriptions } = this.d;
    const p = n.params ?? {};
    const kinds = INVALIDATES[n.method];
    if (kinds) {
      catalogue.invalidate(server, kinds);
      const kind = n.method.split('/')[1] as ListKind;
      // Said on at most once an interval: a storm of them is one refetch, not one per message.
      this.changes.run(`${server}\u0000${n.method}`, () => {
        events.emit({ type: 'list.changed', server, list: kind });
        // Relayed where the list shown really changes (the Gateway asks each endpoint: tools only where
        // the server's tools are listed under their names).
        changed(kind, server);
      });
    }
    switch (n.method) {
      case 'notifications/progress':
        // Only a report on a call of this connection goes anywhere, at the relay's pace.
        calls.relayProgress(server, scope, p, (r) =>
          events.emit({
            type: 'progress',
            server,
            progress: r.progress,
            ...(r.total !== undefined ? { total: r.total } : {}),
          }),
        );
        break;
      case 'notifications/resources/updated': {
        // An update of a URI nobody watches concerns nobody; a watched one is passed on at most once an
        // interval.
        const uri = String(p.uri);
        if (!subscriptions.watches.watched(server, uri)) break;
        this.changes.run(`${server}\u0000${n.method}\u0000${uri}`, () => {
          subscriptions.watches.updated(server, p);
          events.emit({ type: 'resource.updated', server, uri });
        });
        break;
      }
      case 'notifications/elicitation/complete':
        // The out-of-band step of a URL elicitation is done (2025-11-25): whoever shows it may stop waiting
        // — the editor, and the client that was given it (docs/protocol.md "URL-mode state").
        if (typeof p.elicitationId === 'string') {
          this.d.urls.completed(entryKey(server, scope), p.elicitationId);
          events.emit({ type: 'elicitation.complete', server, elicitationId: p.elicitationId });
        }
        break;
      case 'notifications/message': {
        if (!this.logBudget(server, scope)) break;
        // The upstream's own secrets are masked before its message goes anywhere: /v1/events, the
        // editor, the calling client (docs/security.md "Secrets in output and logs").
        const data = redactValue(p.data, def);
        events.emit({
          type: 'server.log',
          server,
          level: String(p.level),
          data,
          ...(typeof p.logger === 'string' ? { logger: p.logger } : {}),
        });
        if (!calls.log(server, scope, { ...p, data }, related) && isLogLevel(p.level))
          this.d.unrelatedLog({
            level: p.level,
            data,
            ...(typeof p.logger === 'string' ? { logger: p.logger } : {}),
            ...(def.scope === 'identity' ? { identity: scope } : {}),
          });
        break;
      }
    }
  }

  /** Whether one more log message of (server, scope) may pass: LOG_MESSAGES a second, after a burst.
   *  What is dropped is counted, and the count logged a second later (docs/security.md "Bounds"). */
  private logBudget(server: string, scope: string): boolean {
    const key = entryKey(server, scope);
    let r = this.logRates.get(key);
    if (!r) this.logRates.set(key, (r = { rate: new Rate(LOG_MESSAGES.perSecond, LOG_MESSAGES.burst) }));
    if (r.rate.take()) return true;
    const held = r;
    held.timer ??= setTimeout(() => {
      held.timer = undefined;
      this.d.log(
        `[${server}] ${held.rate.dropped()} log message(s) not passed on (more than ${LOG_MESSAGES.perSecond} a second)`,
      );
    }, 1000).unref();
    return false;
  }

  close(): void {
    this.changes.close();
    for (const r of this.logRates.values()) if (r.timer) clearTimeout(r.timer);
    this.logRates.clear();
  }
}
