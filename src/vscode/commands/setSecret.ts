// mcpx: Set Secret… — a credential stored in SecretStorage under a name the definitions refer to as
// ${secret:NAME} (docs/security.md); the host reloads the servers that refer to it.
import { command } from './command';

const ANOTHER = '$(add) Another name…';

export const setSecret = command(async (d) => {
  const secrets = d.host.secrets;
  if (!secrets) return;
  const named = d.host
    .referencedSecrets()
    .map((label) => ({ label, description: 'referred to as ${secret:' + label + '}' }));
  const pick = await d.window.showQuickPick([...named, { label: ANOTHER, description: '' }], {
    title: 'mcpx: store a credential in SecretStorage',
  });
  if (!pick) return;
  const name =
    pick.label === ANOTHER
      ? await d.window.showInputBox({
          title: 'mcpx: secret name',
          prompt: 'Refer to it in a server definition as ${secret:NAME}',
          validateInput: (v) => (/^[\w.-]+$/.test(v) ? undefined : 'letters, digits, _ . -'),
        })
      : pick.label;
  if (!name) return;
  const value = await d.window.showInputBox({ title: `mcpx: value of ${name}`, password: true, ignoreFocusOut: true });
  if (value === undefined) return;
  await secrets.store(name, value);
  void d.window.showInformationMessage(`mcpx: stored ${name}; servers referring to it are reloaded.`);
});
