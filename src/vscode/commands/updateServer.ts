// mcpx: Update Server from the Registry… (the Upstreams view offers it on a registry-installed server
// with a newer version; docs/registry.md "In the editor"): the server.json diff shown, the person's yes,
// the new version installed with the inputs of the install (secrets stay in SecretStorage), the
// definition saved where it is, the server started. A tool whose definition changed is then held by the
// pins (docs/gateway.md "Pins").
import { RegistryCache } from '../../registry/cache';
import { RegistryClient } from '../../registry/client';
import { pruneVersions } from '../../registry/install';
import { plannedUpdate, provenanceOf, updateRequest } from '../../registry/update';
import { type ServerArg, serverOf } from './ask';
import { gatewayCommand } from './command';
import { installWithProgress, line } from './fromRegistry';
import { saveToSettings, saveToWorkspace, startAndShow } from './serverDefinitions';

export const updateServer = gatewayCommand(async (d, g, arg?: ServerArg) => {
  const server = await serverOf(arg, g, d.window);
  if (!server) return;
  const def = g.config.servers.find((s) => s.name === server) as unknown as Record<string, unknown> | undefined;
  const p = provenanceOf(def);
  if (!def || !p) return void d.window.showErrorMessage(`mcpx: ${server} was not installed from an MCP Registry.`);
  const client = new RegistryClient({
    url: p.url ?? g.settings.get<string>('registry.url'),
    timeoutMs: g.settings.duration('registry.timeout'),
    cache: RegistryCache.inState(d.registry.stateDir),
  });
  try {
    const plan = await plannedUpdate(client, p);
    if (!plan) return void d.window.showInformationMessage(`mcpx: ${server} is at ${line(p.version)}, the latest.`);
    const next = line(plan.latest.server.version);
    await d.results.showJson(`${server}: server.json ${line(p.version)} → ${next}`, plan.diff.trimEnd().split('\n'));
    const go = await d.window.showInformationMessage(
      `mcpx: update ${server} from ${line(p.version)} to ${next}? A tool whose definition changed is held until you accept it.`,
      'Update',
    );
    if (go !== 'Update') return;
    const extraHosts = g.settings.get<string[]>('registry.packageHosts');
    const req = updateRequest({ client, local: server, def, p, latest: plan.latest, extraHosts }, new Map(), true);
    const result = await installWithProgress(d, req, extraHosts);
    const file = d.host.definedIn(server) ? d.mcpJson() : undefined;
    if (file) {
      if (!(await saveToWorkspace(d, file, server, result.def))) return;
    } else await saveToSettings(d, { [server]: result.def });
    pruneVersions(d.registry.stateDir, server, plan.latest.server.version);
    await startAndShow(d, [server]);
  } catch (e) {
    void d.window.showErrorMessage(`mcpx: ${server} was not updated: ${line((e as Error).message)}`);
  }
});
