// mcpx: Answer Question… — a question waiting at the broker (the Questions view's row gives its id; the
// palette picks one) put to the person; the answer goes upstream unless the broker refuses it. An approval
// (`mcpx/approval`) waits there only while no editor Approver is set — the host sets one on both its
// gateways, so in practice never —; it is answered with the approval's own choices.
import { APPROVAL_METHOD } from '../../gateway/inbox/broker';
import { gatewayCommand } from './command';

const APPROVAL_CHOICES = [
  { label: 'Allow once', action: 'once' },
  { label: 'Allow until the gateway stops', action: 'session' },
  { label: 'Always allow', action: 'always' },
  { label: 'Deny', action: 'deny' },
] as const;

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
  if (q.method === APPROVAL_METHOD) {
    const pick = await d.window.showQuickPick([...APPROVAL_CHOICES], {
      title: `mcpx: ${String(q.params.message ?? 'an approval')}`,
      placeHolder: `arguments: ${JSON.stringify(q.params.arguments ?? {})}`,
    });
    const problem = pick && g.answer(q.id, { action: pick.action });
    if (problem) void d.window.showErrorMessage(`mcpx: the answer was refused: ${problem}`);
    return;
  }
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
