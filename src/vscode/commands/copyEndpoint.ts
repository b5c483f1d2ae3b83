// mcpx: Copy Endpoint — the URL that works, secret included (docs/security.md "The endpoint secret"); the
// message shows it without the secret.
import { command } from './command';

export const copyEndpoint = command(async (d) => {
  const { endpoint, bareEndpoint, whyStopped } = d.host;
  if (!endpoint)
    return void d.window.showWarningMessage(
      `mcpx: the gateway is not running (${whyStopped}), so there is no endpoint to copy.`,
    );
  await d.clipboard.writeText(endpoint);
  void d.window.showInformationMessage(
    `mcpx: copied ${bareEndpoint}/… (the endpoint with its secret; keep it private)`,
  );
});
