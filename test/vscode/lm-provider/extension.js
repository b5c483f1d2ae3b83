// A language model for the editor tests: one model that answers "sampled: <the last user message>".
const vscode = require('vscode');

exports.activate = (context) => {
  const model = {
    id: 'mcpx-test-echo',
    name: 'mcpx test echo',
    family: 'echo',
    version: '1',
    maxInputTokens: 8192,
    maxOutputTokens: 1024,
    capabilities: {},
  };
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('mcpx-test', {
      provideLanguageModelChatInformation: () => [model],
      async provideLanguageModelChatResponse(_m, messages, _o, progress) {
        const last = messages.at(-1);
        const text = (last?.content ?? []).map((p) => (p && typeof p.value === 'string' ? p.value : '')).join('');
        progress.report(new vscode.LanguageModelTextPart(`sampled: ${text}`));
      },
      provideTokenCount: (_m, text) => (typeof text === 'string' ? text.length : 1),
    }),
  );
};
