// One record of what an agent did: a tool call, a resource read, a prompt or a completion, from any client on any path
// (docs/gateway.md "Activity"). The call gate (gateway/permissions/gate.ts) makes it; the activity log
// (activity/log.ts) writes it, redacting and cutting the arguments per `activity.arguments`.
import type { CallKind } from '../../config/permissions';
import type { JsonObject } from '../../protocol/jsonrpc';

/** The path a call came by. */
export type CallPath = 'pass-through' | 'mcpx_call' | 'mcpx_exec' | 'palette' | 'editor' | 'http-api';

/** How the permission check decided: the rule that matched (`permissions.rules[2]`, or `default`), or the
 *  grant that let it through, and who approved an `ask`. */
export interface Decision {
  readonly action: 'allow' | 'ask' | 'deny';
  /** `permissions.rules[N]` (its index in the effective list), `default`, or `grant:<id>`. */
  readonly rule: string;
  /** For an `ask`: who answered and how (`editor: allow once`, `mcpx elicit: deny`, `timeout`). */
  readonly approvedBy?: string;
}

export interface ActivityRecord {
  /** When the request arrived (ISO 8601). */
  readonly time: string;
  readonly kind: CallKind;
  readonly client: {
    /** clientInfo.name and version as the client declared them (untrusted). */
    readonly name?: string;
    readonly version?: string;
    /** docs/protocol.md "Client identity". */
    readonly identity: string;
    readonly revision: string;
    /** http, stdio (standalone), shim (through the stdio shim), editor (the palette and views). */
    readonly transport: 'http' | 'stdio' | 'shim' | 'editor';
  };
  readonly path: CallPath;
  /** For a call inside an mcpx_exec script: the run's id. */
  readonly run?: string;
  readonly server: string;
  /** The tool's or prompt's name, or the resource's URI (the upstream's own); for a completion, what it
   *  completes (its prompt's name or its resource's URI). */
  readonly target: string;
  /** sha256 (hex) of the canonical arguments (kit/canonical.ts): the same arguments, the same digest. */
  readonly argsDigest: string;
  /** The arguments as sent; the log keeps them only under `activity.arguments: full`, redacted and cut. */
  readonly arguments?: JsonObject;
  readonly decision: Decision;
  readonly outcome: {
    readonly status: 'ok' | 'isError' | 'error' | 'denied' | 'cancelled';
    /** The JSON-RPC error code, or mcpx's own refusal code. */
    readonly code?: number | string;
    readonly message?: string;
  };
  readonly durationMs: number;
  /** Bytes of the arguments sent and of the result received (their JSON). */
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly taskId?: string;
  /** The result, in memory only (the editor's Activity view opens it); never written to the log. */
  readonly result?: JsonObject;
  /** A tool call's pin state (docs/gateway.md "Pins"): its definition as pinned, `changed` (let through
   *  under pins.mode warn), `held` (refused until reviewed), or `off` (pins off for its server). */
  readonly pin?: 'pinned' | 'changed' | 'held' | 'off';
  /** A call of a tool with an MCP App: the ui:// resource it renders with, as its server (`server`)
   *  has it (docs/gateway.md "MCP Apps"), so the app can be shown for this call later. */
  readonly app?: { readonly resourceUri: string };
}

/** Where the gate hands each record; appending never blocks and never throws. */
export interface ActivitySink {
  append(record: ActivityRecord): void;
  /** False while nothing is recorded (activity.enabled off): the gate then builds no record. */
  readonly recording?: boolean;
}

export interface ActivityFilter {
  readonly client?: string;
  readonly server?: string;
  /** Only records at or after this time (ms since the epoch). */
  readonly since?: number;
}

/** What the editor's Activity view, `GET /v1/activity` and `mcpx activity` read. */
export interface ActivityFeed {
  /** Newest first, at most `limit`. */
  recent(filter?: ActivityFilter, limit?: number): readonly ActivityRecord[];
  /** Told of each record as it is appended; returns the unsubscribe. */
  onRecord(listener: (record: ActivityRecord) => void): () => void;
}
