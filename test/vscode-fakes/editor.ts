// Hand-written stand-ins for the editor's ports (src/vscode/ports.ts), so the commands and views run in
// plain Node: a window that answers QuickPicks and InputBoxes from a script and records every message,
// the commands executed, the clipboard, the settings written, and VS Code's classes as plain ones. No
// `vscode` is loaded (the unit tests check their own bundle for it).
import assert from 'node:assert/strict';
import { AppTools } from '../../src/vscode/apps/appTools';
import type { Deps } from '../../src/vscode/commands/command';
import { PaletteCalls } from '../../src/vscode/paletteCalls';
import { HeldPins, PINS_SCHEME, type PinsPorts } from '../../src/vscode/pins';
import type { AppCall, Kit, McpJsonFile, Memento } from '../../src/vscode/ports';
import type { JsonObject } from '../../src/protocol/jsonrpc';
import type { PersonPort } from '../../src/gateway/editorPort';
import { type FakeHost, fakeHost } from './host';
import { until } from '../harness/wait';

/** One answer to the next QuickPick or InputBox. */
export type Answer =
  /** The item whose label contains this text. */
  | { pick: string }
  /** The items picked by default (canPickMany), as Enter takes them. */
  | { pickDefault: true }
  /** Typed and accepted (refused if the box's validateInput refuses it). */
  | { input: string }
  /** Typed into an open QuickPick (createQuickPick): its items are read once the picker settles. */
  | { type: string }
  /** The box's own value accepted as it is. */
  | { accept: true }
  /** Escape. */
  | { dismiss: true }
  /** Typed into a searching QuickPick (createQuickPick), then the item whose label contains `pick`
   *  accepted once it is listed. */
  | { search: string; pick: string };

/** What the person was asked: a QuickPick (its title and item labels; for one they typed into, the
 *  value typed and the items then shown) or an InputBox (title, value). */
export interface Asked {
  kind: 'pick' | 'input';
  title?: string;
  placeHolder?: string;
  labels?: string[];
  value?: string;
  /** An InputBox that hides what is typed. */
  password?: boolean;
  /** What validateInput said of the answer typed, when it refused it. */
  refused?: string;
}

export interface Message {
  level: 'info' | 'warning' | 'error';
  text: string;
  items: string[];
}

type Item = string | { label: string; picked?: boolean };
const labelOf = (i: Item) => (typeof i === 'string' ? i : i.label);

/** A window that answers from `answers` in order, and says which message buttons to press. */
export function fakeWindow(answers: Answer[] = []) {
  const asked: Asked[] = [];
  const messages: Message[] = [];
  const progress: Array<{ title?: string; reports: Array<{ message?: string; increment?: number }>; cancel(): void }> =
    [];
  /** A message's button to press: by the message's text; none, nothing pressed. */
  let press: (text: string, items: string[]) => string | undefined = () => undefined;
  const next = (): Answer => {
    const a = answers.shift();
    assert.ok(a, `the person was asked more than the test answered: ${JSON.stringify(asked.at(-1))}`);
    return a;
  };
  const message =
    (level: Message['level']) =>
    (text: string, ...rest: unknown[]): Promise<string | undefined> => {
      const items = rest.filter((x): x is string => typeof x === 'string');
      messages.push({ level, text, items });
      return Promise.resolve(press(text, items));
    };
  const window = {
    async showQuickPick(
      items: Item[] | Promise<Item[]>,
      options: { title?: string; placeHolder?: string; canPickMany?: boolean } = {},
    ) {
      const list = await items;
      asked.push({ kind: 'pick', title: options.title, placeHolder: options.placeHolder, labels: list.map(labelOf) });
      const a = next();
      if ('dismiss' in a) return undefined;
      if ('pickDefault' in a) return list.filter((i) => typeof i !== 'string' && i.picked);
      assert.ok('pick' in a, `a QuickPick answered with ${JSON.stringify(a)}`);
      const found = list.find((i) => labelOf(i).includes(a.pick));
      assert.ok(found, `no item "${a.pick}" in ${JSON.stringify(list.map(labelOf))}`);
      return options.canPickMany ? [found] : found;
    },
    async showInputBox(
      options: { title?: string; value?: string; password?: boolean; validateInput?(v: string): unknown } = {},
    ): Promise<string | undefined> {
      const entry: Asked = {
        kind: 'input',
        title: options.title,
        value: options.value,
        ...(options.password ? { password: true } : {}),
      };
      asked.push(entry);
      const a = next();
      if ('dismiss' in a) return undefined;
      assert.ok('input' in a || 'accept' in a, `an InputBox answered with ${JSON.stringify(a)}`);
      const text = 'input' in a ? a.input : (options.value ?? '');
      const problem = await options.validateInput?.(text);
      if (problem) {
        entry.refused = String(problem);
        // The box stays open with the message: the next answer is typed into it.
        return window.showInputBox(options);
      }
      return text;
    },
    createQuickPick: () => fakeQuickPick(next, asked),
    showInformationMessage: message('info'),
    showWarningMessage: message('warning'),
    showErrorMessage: message('error'),
    async withProgress<R>(
      options: { title?: string },
      task: (
        p: { report(v: { message?: string; increment?: number }): void },
        token: { onCancellationRequested(l: () => void): void },
      ) => Promise<R>,
    ): Promise<R> {
      const cancels: Array<() => void> = [];
      const entry = {
        title: options.title,
        reports: [] as Array<{ message?: string }>,
        cancel: () => {
          for (const c of cancels) c();
        },
      };
      progress.push(entry);
      return task({ report: (v) => entry.reports.push(v) }, { onCancellationRequested: (l) => cancels.push(l) });
    },
    showTextDocument: () => Promise.reject(new Error('not faked: showTextDocument')),
    activeTextEditor: undefined,
  };
  return {
    window,
    asked,
    messages,
    progress,
    /** Which button to press on a message. */
    pressing(f: typeof press) {
      press = f;
    },
    /** The messages of one level, their text only. */
    said: (level: Message['level']) => messages.filter((m) => m.level === level).map((m) => m.text),
  };
}

type Listener<T> = (v: T) => void;

/** A QuickPick made by createQuickPick: shown, it is driven by the script — typed into (the items it
 *  settles on recorded), then an item picked or the picker dismissed. It settles when it is not busy and
 *  its items were set since the typing (at most 5 s). */
function fakeQuickPick(next: () => Answer, asked: Asked[]) {
  const on = { value: [] as Listener<string>[], accept: [] as Listener<void>[], hide: [] as Listener<void>[] };
  const listen =
    <T>(list: Listener<T>[]) =>
    (l: Listener<T>) => {
      list.push(l);
      return { dispose: () => undefined };
    };
  let items: Array<{ label: string }> = [];
  let sets = 0;
  let hidden = false;
  const qp = {
    title: undefined as string | undefined,
    placeholder: undefined as string | undefined,
    value: '',
    busy: false,
    matchOnDescription: false,
    matchOnDetail: false,
    ignoreFocusOut: false,
    selectedItems: [] as Array<{ label: string }>,
    activeItems: [] as Array<{ label: string }>,
    get items() {
      return items;
    },
    set items(v) {
      items = v;
      sets++;
    },
    onDidChangeValue: listen(on.value),
    onDidAccept: listen(on.accept),
    onDidHide: listen(on.hide),
    hide() {
      if (hidden) return;
      hidden = true;
      for (const l of on.hide) l();
    },
    dispose: () => undefined,
    show: () => void drive(),
  };
  const settled = async (since: number) => {
    // At most 5 s: a list that never settles is recorded as it is, and the script's assertions judge it.
    await until(() => !qp.busy && sets !== since, { timeout: 5000, every: 10 }).catch(() => undefined);
  };
  const record = (value?: string) =>
    asked.push({
      kind: 'pick',
      title: qp.title,
      placeHolder: qp.placeholder,
      value,
      labels: items.map((i) => i.label),
    });
  async function drive(): Promise<void> {
    await settled(0);
    record();
    while (!hidden) {
      const a = next();
      if ('type' in a) {
        const since = sets;
        qp.value = a.type;
        for (const l of on.value) l(a.type);
        await settled(since);
        record(a.type);
      } else if ('search' in a) {
        // The person types, waits until what they look for is listed (at most 10 s), then takes it.
        qp.value = a.search;
        for (const l of on.value) l(a.search);
        const found = await until(() => items.find((x) => x.label.includes(a.pick)), {
          timeout: 10_000,
          every: 10,
        }).catch(() => undefined);
        record(a.search);
        if (!found) {
          qp.hide();
          continue;
        }
        qp.selectedItems = [found];
        qp.activeItems = [found];
        for (const l of on.accept) l();
      } else if ('dismiss' in a) {
        qp.hide();
      } else {
        assert.ok('pick' in a, `a QuickPick answered with ${JSON.stringify(a)}`);
        const found = items.find((i) => i.label.includes(a.pick));
        assert.ok(found, `no item "${a.pick}" in ${JSON.stringify(items.map((i) => i.label))}`);
        qp.selectedItems = [found];
        for (const l of on.accept) l();
        // An item that picks nothing leaves the picker open: the next answer goes to it.
      }
    }
  }
  return qp;
}

/** VS Code's classes and enums the views and commands build with, as plain ones. */
export const fakeKit = {
  TreeItem: class {
    description?: string;
    tooltip?: string;
    iconPath?: unknown;
    contextValue?: string;
    id?: string;
    command?: unknown;
    constructor(
      readonly label: string,
      readonly collapsibleState?: number,
    ) {}
  },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ThemeIcon: class {
    constructor(
      readonly id: string,
      readonly color?: { id: string },
    ) {}
  },
  ThemeColor: class {
    constructor(readonly id: string) {}
  },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  Selection: class {},
  Range: class {},
  StatusBarAlignment: { Left: 1, Right: 2 },
} as unknown as Kit & { StatusBarAlignment: { Left: 1; Right: 2 } };

/** Settings by section: the user (global) values, and every write. */
export function fakeConfig(global: Record<string, Record<string, unknown>> = {}) {
  const writes: Array<{ section: string; key: string; value: unknown; target: unknown }> = [];
  const config = {
    getConfiguration: (section: string) => ({
      get: (key: string, d?: unknown) => global[section]?.[key] ?? d,
      inspect: (key: string) => ({ key, globalValue: global[section]?.[key] }),
      update: async (key: string, value: unknown, target: unknown) => {
        writes.push({ section, key, value, target });
        global[section] = { ...global[section], [key]: value };
      },
    }),
    openTextDocument: () => Promise.reject(new Error('not faked: openTextDocument')),
  };
  return { config, writes, global };
}

/** workspaceState. */
export function fakeMemento(values: Record<string, unknown> = {}): Memento & { values: Record<string, unknown> } {
  return {
    values,
    get: ((key: string, d?: unknown) => values[key] ?? d) as Memento['get'],
    update: async (key: string, value: unknown) => {
      if (value === undefined) delete values[key];
      else values[key] = value;
    },
  };
}

/** The workspace's mcp.json in memory; `onWrite` is told of each write. */
export function fakeMcpJson(text?: string, onWrite: (text: string) => void = () => undefined) {
  const file = {
    text,
    path: '/ws/.vscode/mcp.json',
    read: async () => file.text,
    write: async (t: string) => {
      file.text = t;
      onWrite(t);
    },
  };
  return file satisfies McpJsonFile;
}

/** A person who answers each question from `answers` (undefined: dismissed), and records them. */
export function fakePerson(answers: Array<JsonObject | undefined> = []) {
  const questions: Array<{ server: string; method: string; params: JsonObject }> = [];
  const person: PersonPort = {
    can: (method) => method === 'elicitation/create',
    ask: async (q) => {
      questions.push({ server: q.server, method: q.method, params: q.params });
      return answers.shift();
    },
  };
  return { person, questions };
}

/** Every port a command takes, fakes all, each replaceable. */
export function fakeDeps(
  o: {
    answers?: Answer[];
    host?: FakeHost;
    /** The user settings by section, e.g. { mcpx: { servers: {…} } }. */
    settings?: Record<string, Record<string, unknown>>;
    parts?: Partial<Deps>;
  } = {},
) {
  const ui = fakeWindow(o.answers);
  const executed: unknown[][] = [];
  const clipboard: string[] = [];
  const settings = fakeConfig(o.settings);
  const shown: Array<{ title: string; result: JsonObject }> = [];
  const logLines: string[] = [];
  const approved: string[] = [];
  const filters: unknown[] = [];
  const host = o.host ?? fakeHost();
  const window = ui.window as unknown as Deps['window'];
  /** The apps opened (the panel itself is the editor suite's: test/vscode/apps.ts). */
  const apps: AppCall[] = [];
  const d: Deps = {
    window,
    commands: {
      executeCommand: async (...args: unknown[]) => void executed.push(args),
    } as unknown as Deps['commands'],
    clipboard: { writeText: async (t: string) => void clipboard.push(t) },
    config: settings.config as unknown as Deps['config'],
    kit: fakeKit,
    host,
    person: fakePerson().person,
    activity: { setFilter: (f) => void filters.push(f) },
    palette: new PaletteCalls(),
    apps: new AppTools(
      () => host.gateway,
      async (_g, call) => void apps.push(call),
    ),
    results: {
      show: async (title, result) => void shown.push({ title, result }),
      showJson: async (title, value) => void shown.push({ title, result: value as JsonObject }),
    },
    log: { show: () => logLines.push('(shown)'), error: (l) => logLines.push(l) },
    signIn: { approve: (server) => approved.push(server) },
    upstreamLogs: { channel: () => ({ show: () => undefined }) },
    mcpJson: () => undefined,
    extensionPath: '/nowhere/mcpx',
    registry: { stateDir: '/nowhere/state', sandboxAvailable: async () => 'no sandbox in the unit tests' },
    pins: new HeldPins({
      window,
      commands: {
        executeCommand: async (...args: unknown[]) => void executed.push(args),
      } as unknown as Deps['commands'],
      uri: (path) => ({ scheme: PINS_SCHEME, path }) as unknown as ReturnType<PinsPorts['uri']>,
    }),
    ...o.parts,
  };
  return { d, ui, executed, clipboard, settings, shown, logLines, approved, host, filters, apps };
}
