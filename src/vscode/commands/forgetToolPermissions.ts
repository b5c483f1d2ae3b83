// mcpx: Forget Tool Permissions — every "Always allow this tool" of this workspace forgotten
// (toolTrust.ts); those tools ask again. Resolves with how many there were.
import { command } from './command';

export const forgetToolPermissions = command(async (d) => {
  const n = await d.trust.forget();
  void d.window.showInformationMessage(
    n
      ? `mcpx: forgot ${n} tool permission${n === 1 ? '' : 's'}; those tools ask again.`
      : 'mcpx: no tool permissions were remembered in this workspace.',
  );
  return n;
});
