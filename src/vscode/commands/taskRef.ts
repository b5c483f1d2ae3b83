// The task a Tasks view command is about: a row ({kind, id}) or an id of any kind, found among the
// server's tasks, its background calls and the palette calls sent to the background.
import { type JsonObject, isObject } from '../../protocol/jsonrpc';
import type { PaletteCalls } from '../paletteCalls';
import type { GatewayState } from '../ports';
import { type TaskKind, type TaskState, backgroundState } from '../views/taskStates';

/** A row of the Tasks view, as its actions need it. */
export interface FoundTask {
  label: string;
  state: TaskState;
  /** What Show Result opens; only for a completed or failed one. */
  result?: JsonObject;
  /** A palette call of a tool with an MCP App: its server, tool definition and arguments. */
  app?: { server: string; tool: JsonObject; input: JsonObject };
  cancel(): void;
}

const done = (s: TaskState) => s === 'completed' || s === 'failed';

/** A finished call's outcome as a result to show: the result, or its error as an isError result. */
function asResult(o: unknown): JsonObject {
  if (isObject(o) && !(o instanceof Error)) return o;
  const text = o instanceof Error ? o.message : String(o);
  return { content: [{ type: 'text', text }], isError: true };
}

/** One lookup per kind of row, in the order an id of unknown kind is tried. */
const FINDERS: ReadonlyArray<
  [TaskKind, (host: GatewayState, palette: PaletteCalls, id: string) => FoundTask | undefined]
> = [
  [
    'task',
    (host, _, id) => {
      const task = host.tasks?.find(id);
      if (!task) return undefined;
      const o = task.call.finished;
      return {
        label: task.info.label,
        state: task.status,
        result: done(task.status) && o ? asResult(o.result ?? o.error) : undefined,
        cancel: () => task.cancel('cancelled in the editor'),
      };
    },
  ],
  [
    'background',
    (host, _, id) => {
      const bg = host.background?.list().find((c) => c.id === id);
      if (!bg) return undefined;
      const state = backgroundState(bg.status);
      return {
        label: bg.label,
        state,
        result: done(state) && bg.outcomeForShow !== undefined ? asResult(bg.outcomeForShow) : undefined,
        cancel: () => host.background?.cancel(bg.id),
      };
    },
  ],
  [
    'palette',
    (_, palette, id) => {
      const mine = palette.find(id);
      if (!mine) return undefined;
      return {
        label: `${mine.server} · ${mine.tool}`,
        state: mine.status,
        result: done(mine.status) && mine.outcome !== undefined ? asResult(mine.outcome) : undefined,
        ...(mine.definition ? { app: { server: mine.server, tool: mine.definition, input: mine.arguments } } : {}),
        cancel: () => palette.cancel(mine),
      };
    },
  ],
];

export function findTask(host: GatewayState, palette: PaletteCalls, arg: unknown): FoundTask | undefined {
  const ref =
    typeof arg === 'string'
      ? { id: arg }
      : isObject(arg) && typeof arg.id === 'string'
        ? { id: arg.id, kind: arg.kind as TaskKind | undefined }
        : undefined;
  if (!ref) return undefined;
  for (const [kind, find] of FINDERS) {
    if (ref.kind && ref.kind !== kind) continue;
    const found = find(host, palette, ref.id);
    if (found) return found;
  }
  return undefined;
}
