// mcpx: Install 'mcpx' Command — the launcher (src/vscode/install.ts) written where the platform keeps a
// user's commands; a file there that is not ours is replaced only after the person agrees in a modal
// dialog. Resolves with the launcher's path, or undefined when nothing was written.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { installLauncher, launcherPath, ours, pathHint, readIfThere, removeHint } from '../install';
import { command } from './command';

export const installCli = command(async (d): Promise<string | undefined> => {
  const { window } = d;
  const { dir, file } = launcherPath();
  const cli = join(d.extensionPath, 'dist', 'cli.js');
  if (!existsSync(cli))
    return void window.showErrorMessage(`mcpx: this installation has no ${cli}, so there is nothing to launch.`);
  try {
    const existing = await readIfThere(file);
    if (existing !== undefined && !ours(existing)) {
      const replace = 'Replace';
      const pick = await window.showWarningMessage(
        `mcpx: ${file} already exists and was not written by mcpx. Replace it with a launcher of this extension's mcpx?`,
        { modal: true },
        replace,
      );
      if (pick !== replace) {
        void window.showInformationMessage(`mcpx: left ${file} as it was; nothing installed.`);
        return undefined;
      }
    }
    await installLauncher(dir, file, d.extensionPath);
  } catch (e) {
    return void window.showErrorMessage(`mcpx: could not write ${file}: ${(e as Error).message}`);
  }
  // Not awaited: the message stays until dismissed, and the command is done.
  void window
    .showInformationMessage(
      `mcpx: wrote ${file}, which runs this extension's mcpx with VS Code's own runtime. Remove it with \`${removeHint(file)}\` or "mcpx: Uninstall 'mcpx' Command".${pathHint(dir)}`,
      'Copy Path',
    )
    .then((pick) => pick && d.clipboard.writeText(file));
  return file;
});
