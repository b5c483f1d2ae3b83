// The palette commands and the views' actions. Registered up front; while the gateway is not running each
// says why.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { CallContext, GatewayFacade, PersonPort } from '../gateway/facade';
import { type JsonObject, isObject } from '../protocol/jsonrpc';
import { MODERN } from '../protocol/revisions';
import { copyClientConfig } from './clientConfig';
import type { DetachedCall, GatewayHost } from './gatewayHost';
import { extensionPath, installLauncher, refreshLauncher, uninstallLauncher } from './install';
import { mediaBlocks, showMedia } from './mediaView';
import type { ToolTrust } from './toolTrust';
import { EDITOR_IDENTITY, type TaskKind, type TaskState, backgroundState, stateWord } from './views';

/** A call from the editor: mcpx is the client, the person is who asks (roots: the workspace folders).
 *  No progress is shown unless the caller passes where to. */
function editorContext(
  signal = new AbortController().signal,
  progress: (p: number, total?: number, message?: string) => void = () => undefined,
): CallContext {
  return {
    rev: MODERN,
    signal,
    identity: EDITOR_IDENTITY,
    clientCapabilities: {},
    meta: { progressToken: 'mcpx-editor' },
    progress,
    log: () => undefined,
  };
}

/** The server a command is about: named by its argument (a string, or a tree row), else picked. */
export async function serverOf(
  arg: { name?: string } | string | undefined,
  g: GatewayFacade,
): Promise<string | undefined> {
  return typeof arg === 'string' ? arg : (arg?.name ?? (await pickServer(g)));
}

async function pickServer(g: GatewayFacade): Promise<string | undefined> {
  const items = g
    .servers()
    .map((s) => ({ label: s.name, description: [s.state, s.revision, s.transport].filter(Boolean).join(' · ') }));
  if (items.length === 0)
    return void vscode.window.showInformationMessage(
      'mcpx: no upstream servers are configured (.vscode/mcp.json or mcpx.servers).',
    );
  return (await vscode.window.showQuickPick(items, { title: 'mcpx: pick a server' }))?.label;
}

/** Arguments for a tool: its input schema asked through the elicitation form flow when flat, else JSON. */
async function argumentsFor(person: PersonPort, server: string, tool: JsonObject): Promise<JsonObject | undefined> {
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : { type: 'object', properties: {} };
  const params = { mode: 'form', message: `${server} · ${String(tool.name)}: arguments`, requestedSchema: schema };
  if (!isObject(schema.properties) || Object.keys(schema.properties).length === 0) return {};
  if (person.can('elicitation/create', params)) {
    const r = await person.ask({ server, method: 'elicitation/create', params }, new AbortController().signal);
    return r?.action === 'accept' && isObject(r.content) ? r.content : undefined;
  }
  const text = await vscode.window.showInputBox({
    title: `${server} · ${String(tool.name)}: arguments (JSON)`,
    value: '{}',
    validateInput: (v) => {
      try {
        return isObject(JSON.parse(v)) ? undefined : 'a JSON object';
      } catch (e) {
        return (e as Error).message;
      }
    },
  });
  return text === undefined ? undefined : (JSON.parse(text) as JsonObject);
}

/** Results shown in read-only editors (a virtual document per result; nothing to save, nothing dirty). */
const RESULT_SCHEME = 'mcpx-result';
const results = new Map<string, string>();
let resultSeq = 0;
const resultDocs: vscode.TextDocumentContentProvider = {
  provideTextDocumentContent: (uri) => results.get(uri.path) ?? '',
};

/** A result in a read-only editor: its text blocks, then the whole result as JSON. */
async function showResult(title: string, result: JsonObject): Promise<void> {
  const blocks = Array.isArray(result.content) ? (result.content as JsonObject[]) : [];
  const text = blocks
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text))
    .join('\n\n');
  const body = `${text ? `${text}\n\n` : ''}// ${title}: the whole result\n${JSON.stringify(result, null, 2)}\n`;
  const path = `/${title.replace(/[^\w.-]+/g, '-')}-${++resultSeq}.txt`;
  results.set(path, body);
  // Only the newest results are kept.
  if (results.size > 20) results.delete(results.keys().next().value!);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: RESULT_SCHEME, path }));
  await vscode.window.showTextDocument(doc, { preview: true });
  const media = mediaBlocks(blocks);
  if (media.length) showMedia(title, media);
  if (result.isError === true)
    void vscode.window.showErrorMessage(`mcpx: ${title} returned an error: ${text.slice(0, 200)}`);
}

const TERMINAL: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'cancelled']);

/** A finished call's outcome as a result to show: the result, or its error as an isError result. */
function asResult(o: unknown): JsonObject {
  if (isObject(o) && !(o instanceof Error)) return o;
  const text = o instanceof Error ? o.message : String(o);
  return { content: [{ type: 'text', text }], isError: true };
}

/** A row of the Tasks view, as its actions need it. */
interface FoundTask {
  label: string;
  state: TaskState;
  /** What Show Result opens; only for a completed or failed one. */
  result?: JsonObject;
  cancel(): void;
}

/** The task a command is about: a Tasks view row ({kind, id}), or an id of any kind. */
function findTask(host: GatewayHost, arg: unknown): FoundTask | undefined {
  const ref =
    typeof arg === 'string'
      ? { id: arg }
      : isObject(arg) && typeof arg.id === 'string'
        ? { id: arg.id, kind: arg.kind as TaskKind | undefined }
        : undefined;
  if (!ref) return undefined;
  const done = (s: TaskState) => s === 'completed' || s === 'failed';
  const task = !ref.kind || ref.kind === 'task' ? host.tasks?.find(ref.id) : undefined;
  if (task) {
    const o = task.call.finished;
    return {
      label: task.info.label,
      state: task.status,
      result: done(task.status) && o ? asResult(o.result ?? o.error) : undefined,
      cancel: () => task.cancel('cancelled in the editor'),
    };
  }
  const bg = !ref.kind || ref.kind === 'background' ? host.background?.list().find((c) => c.id === ref.id) : undefined;
  if (bg) {
    const state = backgroundState(bg.status);
    return {
      label: bg.label,
      state,
      result: done(state) && bg.outcomeForShow !== undefined ? asResult(bg.outcomeForShow) : undefined,
      cancel: () => host.background?.cancel(bg.id),
    };
  }
  const mine = !ref.kind || ref.kind === 'palette' ? host.detached.find((c) => c.id === ref.id) : undefined;
  if (mine)
    return {
      label: `${mine.server} · ${mine.tool}`,
      state: mine.status,
      result: done(mine.status) && mine.outcome !== undefined ? asResult(mine.outcome) : undefined,
      cancel: () => {
        mine.status = 'cancelled';
        mine.endedAt = Date.now();
        mine.abort.abort(new Error('cancelled in the editor'));
        host.detachedChanged();
      },
    };
  return undefined;
}

export function registerCommands(
  host: GatewayHost,
  person: PersonPort,
  log: vscode.LogOutputChannel,
  trust: ToolTrust,
): vscode.Disposable[] {
  const running = (): GatewayFacade | undefined => {
    if (host.gateway) return host.gateway;
    void vscode.window.showWarningMessage(`mcpx: the gateway is not running: ${host.whyStopped}.`);
    return undefined;
  };
  const reg = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn);
  /** Palette tool calls running with their progress notification: id -> send it to the background. */
  const inFlight = new Map<string, () => void>();
  /** A palette call sent to the background: listed in the Tasks view; its end is announced. */
  const runDetached = (call: DetachedCall, work: Promise<JsonObject>): void => {
    host.detached.push(call);
    host.detachedChanged();
    const title = `${call.server} · ${call.tool}`;
    void work
      .then(
        (result) => {
          if (call.status !== 'working') return;
          call.status = result.isError === true ? 'failed' : 'completed';
          call.outcome = result;
        },
        (e: Error) => {
          if (call.status !== 'working') return;
          call.status = 'failed';
          call.outcome = e.message;
        },
      )
      .then(async () => {
        call.endedAt ??= Date.now();
        host.detachedChanged();
        if (call.status === 'cancelled') return;
        const pick = await vscode.window.showInformationMessage(
          `mcpx: ${title}, run in the background, ${stateWord(call.status)}.`,
          'Show Result',
        );
        if (pick) await vscode.commands.executeCommand('mcpx.showTaskResult', { kind: 'palette', id: call.id });
      });
  };
  // An installed `mcpx` launcher whose runtime or bundle went away with an update is pointed at this one.
  void refreshLauncher(extensionPath()).catch(() => undefined);
  return [
    vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, resultDocs),
    reg('mcpx.callTool', async (target?: string | { server?: unknown; item?: unknown }, toolName?: string) => {
      const g = running();
      if (!g) return;
      // The palette passes nothing, a click on a tool row (server, tool), its context menu the row itself.
      const row = typeof target === 'object' ? target : undefined;
      const serverArg = row
        ? typeof row.server === 'string'
          ? row.server
          : undefined
        : (target as string | undefined);
      const toolArg = row ? (isObject(row.item) ? String(row.item.name) : undefined) : toolName;
      const server = serverArg ?? (await pickServer(g));
      if (!server) return;
      const tools = await g
        .serverList(server, 'tools', EDITOR_IDENTITY)
        .catch((e: Error) => void vscode.window.showErrorMessage(`mcpx: ${server}: ${e.message}`));
      if (!tools) return;
      const tool = toolArg
        ? tools.find((t) => t.name === toolArg)
        : (
            await vscode.window.showQuickPick(
              tools.map((t) => ({
                label: String(t.name),
                description: typeof t.title === 'string' ? t.title : undefined,
                detail: typeof t.description === 'string' ? t.description : undefined,
                t,
              })),
              { title: `mcpx: a tool of ${server}`, matchOnDetail: true },
            )
          )?.t;
      if (!tool) return;
      const args = await argumentsFor(person, server, tool);
      if (!args) return;
      if (!(await trust.confirm(server, tool, args))) return;
      const name = String(tool.name);
      const title = `${server} · ${name}`;
      // While it runs, its progress notification offers Cancel and "Run in background": detached, the
      // call runs on and the Tasks view shows it (host.detached), its end announced with Show Result.
      const call: DetachedCall = {
        id: randomUUID(),
        server,
        tool: name,
        startedAt: Date.now(),
        status: 'working',
        abort: new AbortController(),
      };
      let report: (p: number, total?: number, message?: string) => void = () => undefined;
      const work = g.callTool(
        'mcpx_call',
        { server, tool: name, arguments: args },
        editorContext(call.abort.signal, (p, total, message) => {
          call.progress = { progress: p, total };
          report(p, total, message);
        }),
      );
      let detach!: () => void;
      const detached = new Promise<'detached'>((resolve) => (detach = () => resolve('detached')));
      inFlight.set(call.id, detach);
      const link = `[Run in background](command:mcpx.runInBackground?${encodeURIComponent(JSON.stringify([call.id]))})`;
      const outcome = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `mcpx: ${title}`, cancellable: true },
        (progress, token) => {
          token.onCancellationRequested(() => call.abort.abort(new Error('cancelled in the editor')));
          let last = 0;
          progress.report({ message: link });
          report = (p, total, message) => {
            const pct = total ? (p / total) * 100 : undefined;
            progress.report({
              message: `${message ? `${message} · ` : ''}${link}`,
              increment: pct !== undefined ? pct - last : undefined,
            });
            if (pct !== undefined) last = pct;
          };
          return Promise.race([
            work.then(
              (result) => ({ result }),
              (error: Error) => ({ error }),
            ),
            detached,
          ]);
        },
      );
      inFlight.delete(call.id);
      report = () => undefined;
      if (outcome === 'detached') return runDetached(call, work);
      if ('error' in outcome) return void vscode.window.showErrorMessage(`mcpx: ${title}: ${outcome.error.message}`);
      await showResult(title, outcome.result);
    }),
    reg('mcpx.runInBackground', (id?: string) => {
      // From the notification's link (its call), or the palette (the newest call running).
      const detach = id !== undefined ? inFlight.get(id) : [...inFlight.values()].at(-1);
      if (!detach) return void vscode.window.showInformationMessage('mcpx: no tool call from the palette is running.');
      detach();
    }),
    reg('mcpx.restartUpstream', async (arg?: { name?: string } | string) => {
      const g = running();
      if (!g) return;
      const server = await serverOf(arg, g);
      if (!server) return;
      await g.restartServer(server, EDITOR_IDENTITY).then(
        () => vscode.window.showInformationMessage(`mcpx: ${server} restarted.`),
        (e: Error) => vscode.window.showErrorMessage(`mcpx: ${server} did not start: ${e.message}`),
      );
    }),
    reg('mcpx.showLog', () => log.show()),
    reg('mcpx.setSecret', async () => {
      if (!host.secrets) return;
      const named = host
        .referencedSecrets()
        .map((label) => ({ label, description: 'referred to as ${secret:' + label + '}' }));
      const pick = await vscode.window.showQuickPick([...named, { label: '$(add) Another name…', description: '' }], {
        title: 'mcpx: store a credential in SecretStorage',
      });
      if (!pick) return;
      const name = pick.label.startsWith('$(add)')
        ? await vscode.window.showInputBox({
            title: 'mcpx: secret name',
            prompt: 'Refer to it in a server definition as ${secret:NAME}',
            validateInput: (v) => (/^[\w.-]+$/.test(v) ? undefined : 'letters, digits, _ . -'),
          })
        : pick.label;
      if (!name) return;
      const value = await vscode.window.showInputBox({
        title: `mcpx: value of ${name}`,
        password: true,
        ignoreFocusOut: true,
      });
      if (value === undefined) return;
      await host.secrets.store(name, value);
      void vscode.window.showInformationMessage(`mcpx: stored ${name}; servers referring to it are reloaded.`);
    }),
    reg('mcpx.copyEndpoint', async () => {
      if (!host.endpoint)
        return void vscode.window.showWarningMessage(
          `mcpx: the gateway is not running (${host.whyStopped}), so there is no endpoint to copy.`,
        );
      // The URL that works, secret included (docs/security.md "The endpoint secret"); the message shows it
      // without the secret.
      await vscode.env.clipboard.writeText(host.endpoint);
      void vscode.window.showInformationMessage(
        `mcpx: copied ${host.bareEndpoint}/… (the endpoint with its secret; keep it private)`,
      );
    }),
    reg('mcpx.copyClientConfig', () => copyClientConfig(host, extensionPath())),
    reg('mcpx.installCli', () => installLauncher(extensionPath())),
    reg('mcpx.uninstallCli', () => uninstallLauncher()),
    reg('mcpx.answerQuestion', async (id?: string) => {
      const g = running();
      if (!g) return;
      const q =
        g.questions().find((x) => x.id === id) ??
        (
          await vscode.window.showQuickPick(
            g.questions().map((x) => ({ label: `${x.server}: ${String(x.params.message ?? x.method)}`, x })),
            { title: 'mcpx: pending questions' },
          )
        )?.x;
      if (!q) return;
      if (!person.can(q.method, q.params))
        return void vscode.window.showWarningMessage(
          `mcpx: this question (${q.method}) cannot be answered in the editor yet; use \`mcpx elicit\`.`,
        );
      const answer = await person.ask(
        { server: q.server, method: q.method, params: q.params },
        new AbortController().signal,
      );
      if (!answer) return; // dismissed again: it stays in the Questions view until its deadline
      const problem = g.answer(q.id, answer);
      if (problem) void vscode.window.showErrorMessage(`mcpx: the answer was refused: ${problem}`);
    }),
    reg('mcpx.task', async (arg?: unknown) => {
      const t = findTask(host, arg);
      if (!t) return void vscode.window.showInformationMessage('mcpx: that task has ended and was collected.');
      const choices = t.result ? ['Show result'] : TERMINAL.has(t.state) ? [] : ['Cancel the call'];
      if (choices.length === 0)
        return void vscode.window.showInformationMessage(`mcpx: ${t.label} was ${stateWord(t.state)}.`);
      const pick = await vscode.window.showQuickPick(choices, { title: `mcpx: ${t.label} (${stateWord(t.state)})` });
      if (pick === 'Cancel the call') t.cancel();
      else if (pick === 'Show result') await showResult(t.label, t.result!);
    }),
    reg('mcpx.cancelTask', (arg?: unknown) => {
      const t = findTask(host, arg);
      if (!t || TERMINAL.has(t.state))
        return void vscode.window.showInformationMessage('mcpx: that task is no longer running.');
      t.cancel();
    }),
    reg('mcpx.showTaskResult', async (arg?: unknown) => {
      const t = findTask(host, arg);
      if (!t?.result) return void vscode.window.showInformationMessage('mcpx: that task has no result to show.');
      await showResult(t.label, t.result);
    }),
    reg('mcpx.showQuestions', () => vscode.commands.executeCommand('mcpx.questions.focus')),
    reg('mcpx.readResource', async () => {
      const g = running();
      if (!g) return;
      const resources = await g
        .listResources(editorContext())
        .catch((e: Error) => void vscode.window.showErrorMessage(`mcpx: ${e.message}`));
      if (!resources) return;
      const pick = await vscode.window.showQuickPick(
        resources.map((r) => ({
          label: String(r.name ?? r.uri),
          description: String(r.uri),
          detail: typeof r.description === 'string' ? r.description : undefined,
          uri: String(r.uri),
        })),
        { title: 'mcpx: a resource to read', matchOnDescription: true },
      );
      if (!pick) return;
      try {
        const r = await g.readResource(pick.uri, editorContext());
        const contents = (r.contents as JsonObject[]) ?? [];
        await showResult(pick.uri, {
          content: contents.map((c) =>
            typeof c.text === 'string'
              ? { type: 'text', text: c.text }
              : {
                  type: 'text',
                  text: `[${String(c.mimeType ?? 'binary')} content, ${String(c.blob ?? '').length} base64 characters]`,
                },
          ),
          contents,
        });
      } catch (e) {
        void vscode.window.showErrorMessage(`mcpx: ${pick.uri}: ${(e as Error).message}`);
      }
    }),
    reg('mcpx.getPrompt', async () => {
      const g = running();
      if (!g) return;
      const ctx = editorContext();
      const prompts = await g
        .listPrompts(ctx)
        .catch((e: Error) => void vscode.window.showErrorMessage(`mcpx: ${e.message}`));
      if (!prompts) return;
      const pick = await vscode.window.showQuickPick(
        prompts.map((p) => ({
          label: String(p.name),
          description: typeof p.title === 'string' ? p.title : undefined,
          detail: typeof p.description === 'string' ? p.description : undefined,
          p,
        })),
        { title: 'mcpx: a prompt' },
      );
      if (!pick) return;
      // Prompt arguments are strings: the same form flow, from a schema made of them.
      const args = Array.isArray(pick.p.arguments) ? (pick.p.arguments as JsonObject[]) : [];
      const schema = {
        type: 'object',
        properties: Object.fromEntries(
          args.map((a) => [
            String(a.name),
            { type: 'string', title: String(a.title ?? a.name), description: a.description },
          ]),
        ),
        required: args.filter((a) => a.required === true).map((a) => String(a.name)),
      };
      const values = args.length ? await argumentsFor(person, 'mcpx', { name: pick.p.name, inputSchema: schema }) : {};
      if (!values) return;
      try {
        const r = await g.getPrompt(String(pick.p.name), values as Record<string, string>, ctx);
        const msgs = (r.messages as JsonObject[]) ?? [];
        await showResult(String(pick.p.name), {
          content: msgs.map((m) => ({
            type: 'text',
            text: `${String(m.role)}: ${isObject(m.content) && typeof m.content.text === 'string' ? m.content.text : JSON.stringify(m.content)}`,
          })),
          messages: msgs,
        });
      } catch (e) {
        void vscode.window.showErrorMessage(`mcpx: ${String(pick.p.name)}: ${(e as Error).message}`);
      }
    }),
    reg('mcpx.openConfig', async (arg?: { name?: string } | string) => {
      const g = running();
      if (!g) return;
      const server = await serverOf(arg, g);
      if (!server) return;
      const where = host.definedIn(server);
      // The workspace's mcp.json, or the user settings.json (mcpx.servers).
      if (where) await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(where));
      else await vscode.commands.executeCommand('workbench.action.openSettingsJson');
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      // The entry itself: the first line that names it as a key.
      const line = editor.document
        .getText()
        .split('\n')
        .findIndex((l) => l.includes(`"${server}"`));
      if (line >= 0) {
        editor.selection = new vscode.Selection(line, 0, line, 0);
        editor.revealRange(new vscode.Range(line, 0, line, 0));
      }
    }),
    reg('mcpx.stopUpstream', async (arg?: { name?: string } | string) => {
      const g = running();
      if (!g) return;
      const server = await serverOf(arg, g);
      if (server) await g.stopServer(server);
    }),
    reg('mcpx.menu', async () => {
      const items = [
        { label: '$(play) Call Tool…', command: 'mcpx.callTool' },
        { label: '$(add) Add Server…', command: 'mcpx.addServer' },
        { label: '$(book) Read Resource…', command: 'mcpx.readResource' },
        { label: '$(comment) Get Prompt…', command: 'mcpx.getPrompt' },
        { label: '$(debug-restart) Restart Upstream…', command: 'mcpx.restartUpstream' },
        { label: '$(output) Show Log', command: 'mcpx.showLog' },
        { label: '$(copy) Copy Endpoint', command: 'mcpx.copyEndpoint' },
        { label: '$(json) Copy Client Config', command: 'mcpx.copyClientConfig' },
        { label: "$(terminal) Install 'mcpx' Command", command: 'mcpx.installCli' },
      ];
      const pick = await vscode.window.showQuickPick(items, {
        title: host.bareEndpoint ? `mcpx at ${host.bareEndpoint}` : `mcpx: not running (${host.whyStopped})`,
      });
      if (pick) await vscode.commands.executeCommand(pick.command);
    }),
  ];
}
