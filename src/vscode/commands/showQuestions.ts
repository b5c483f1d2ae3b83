// mcpx: Show Questions — the Questions view brought forward.
import { command } from './command';

export const showQuestions = command((d) => d.commands.executeCommand('mcpx.questions.focus'));
