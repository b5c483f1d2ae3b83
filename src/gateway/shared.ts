// What a team's replica shares through the store beyond what its ports already take (pins, grants and
// sign-ins are given as a PinStore, a GrantStore and a SecretStore): the ports src/team/ implements
// (docs/team.md). One gateway has none of them, and behaves as it always has.
import type { ListKind } from '../server/provider';
import type { ActivityFilter, ActivityRecord } from './activity/record';
import type { Question } from './inbox/broker';

/** The activity log as one stream every replica appends to (docs/team.md "Activity"). */
export interface ActivityStream {
  /** A record as it is stored (activity/shape.ts `stored`): appending never blocks and never throws. */
  append(record: ActivityRecord): void;
  /** The newest `limit` records that match, newest first, none older than `oldest`. */
  read(filter: ActivityFilter, limit: number, oldest: number): Promise<ActivityRecord[]>;
}

/** An artifact as the store keeps it for any replica to serve (docs/gateway.md "Artifacts"). */
export interface SharedArtifact {
  readonly id: string;
  readonly identity: string;
  /** The whole result, as JSON. */
  readonly text: string;
  readonly bytes: number;
  readonly tool: string;
  readonly expiresAt: number;
}

export interface ArtifactShelf {
  put(a: SharedArtifact): void;
  get(id: string): Promise<SharedArtifact | undefined>;
}

/** A list change an upstream announced, told to every replica's clients once (docs/team.md "Lists"). */
export interface ListBus {
  /** Heard here from the upstream: told to the other replicas. False when the same change was just
   *  heard from another replica and this replica's clients were told of it already. */
  heard(kind: ListKind, server: string): boolean;
}

export interface SharedParts {
  activity?: ActivityStream;
  /** Told when a question is asked at the broker and when it settles (the store lists it for every
   *  replica's `mcpx elicit`). */
  questions?: (event: 'asked' | 'settled', q: Question, identity: string) => void;
  artifacts?: ArtifactShelf;
  lists?: ListBus;
}
