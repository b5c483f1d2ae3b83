// mcpx: Menu — the status bar item's click: the common commands in a QuickPick titled with the endpoint
// (or why the gateway is not running).
import { command } from './command';

const ITEMS = [
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

export const menu = command(async (d) => {
  const { bareEndpoint, whyStopped } = d.host;
  const pick = await d.window.showQuickPick(ITEMS, {
    title: bareEndpoint ? `mcpx at ${bareEndpoint}` : `mcpx: not running (${whyStopped})`,
  });
  if (pick) await d.commands.executeCommand(pick.command);
});
