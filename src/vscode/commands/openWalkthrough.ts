// mcpx: Get Started — the getting-started walkthrough (package.json contributes.walkthroughs; its pages in
// media/walkthrough/), also opened from the empty views' welcome content.
import { command } from './command';

const WALKTHROUGH = 'mcpx.mcpx#gettingStarted';

export const openWalkthrough = command((d) =>
  d.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false),
);
