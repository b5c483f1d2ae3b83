// mcpx: Uninstall 'mcpx' Command — the launcher removed if it is ours; a file there not written by mcpx is
// left as it is. Resolves true when it removed it.
import { rm } from 'node:fs/promises';
import { launcherPath, ours, readIfThere } from '../install';
import { command } from './command';

export const uninstallCli = command(async (d): Promise<boolean> => {
  const { window } = d;
  const { file } = launcherPath();
  try {
    const existing = await readIfThere(file);
    if (existing === undefined) {
      void window.showInformationMessage(`mcpx: there is no launcher at ${file}; nothing to remove.`);
      return false;
    }
    if (!ours(existing)) {
      void window.showWarningMessage(`mcpx: ${file} was not written by mcpx; it is left as it is.`);
      return false;
    }
    await rm(file, { force: true });
  } catch (e) {
    void window.showErrorMessage(`mcpx: could not remove ${file}: ${(e as Error).message}`);
    return false;
  }
  void window.showInformationMessage(`mcpx: removed ${file}.`);
  return true;
});
