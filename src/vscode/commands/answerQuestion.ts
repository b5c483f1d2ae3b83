// mcpx: Answer Question… — a question waiting at the broker (the Questions view's row gives its id; the
// palette picks one) put to the person; the answer goes upstream unless the broker refuses it.
import { gatewayCommand } from './command';

export const answerQuestion = gatewayCommand(async (d, g, id?: string) => {
  const q =
    g.questions().find((x) => x.id === id) ??
    (
      await d.window.showQuickPick(
        g.questions().map((x) => ({ label: `${x.server}: ${String(x.params.message ?? x.method)}`, x })),
        { title: 'mcpx: pending questions' },
      )
    )?.x;
  if (!q) return;
  if (!d.person.can(q.method, q.params))
    return void d.window.showWarningMessage(
      `mcpx: this question (${q.method}) cannot be answered in the editor yet; use \`mcpx elicit\`.`,
    );
  const answer = await d.person.ask(
    { server: q.server, method: q.method, params: q.params },
    new AbortController().signal,
  );
  if (!answer) return; // dismissed again: it stays in the Questions view until its deadline
  const problem = g.answer(q.id, answer);
  if (problem) void d.window.showErrorMessage(`mcpx: the answer was refused: ${problem}`);
});
