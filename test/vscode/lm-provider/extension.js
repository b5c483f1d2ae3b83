// A language model for the editor tests: one model that answers "sampled: <the last user message>",
// word by word (so a reader can stop mid-stream). Offered tools and a last message containing
// "use a tool", it answers with a call of the first tool instead; with "refuse tools", it refuses the
// request as a model without tool calling would. What it received last (the messages'
// text, modelOptions, tools, toolMode) is kept in `exports.received` for the tests to read.
const vscode = require('vscode');

const textOf = (m) =>
  (m?.content ?? [])
    .map((p) => {
      if (p && typeof p.value === 'string') return p.value;
      if (p instanceof vscode.LanguageModelToolResultPart) return `[result ${p.callId}]`;
      if (p instanceof vscode.LanguageModelToolCallPart) return `[call ${p.name}]`;
      return '';
    })
    .join('');

exports.activate = (context) => {
  const api = { received: [] };
  const model = {
    id: 'mcpx-test-echo',
    name: 'mcpx test echo',
    family: 'echo',
    version: '1',
    maxInputTokens: 8192,
    maxOutputTokens: 1024,
    capabilities: { toolCalling: true },
  };
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('mcpx-test', {
      provideLanguageModelChatInformation: () => [model],
      async provideLanguageModelChatResponse(_m, messages, options, progress) {
        const tools = (options.tools ?? []).map((t) => ({
          name: t.name,
          description: t.description,
          inputSchema: t.inputSchema,
        }));
        api.received.push({
          messages: messages.map((m) => ({
            role: m.role === vscode.LanguageModelChatMessageRole.User ? 'user' : 'assistant',
            text: textOf(m),
          })),
          modelOptions: options.modelOptions ?? {},
          tools,
          toolMode: options.toolMode === vscode.LanguageModelChatToolMode.Required ? 'required' : 'auto',
        });
        const last = textOf(messages.at(-1));
        // A model without tool calling, on demand: the request's tools refused.
        if (tools.length && last.includes('refuse tools')) throw new Error('this model takes no tools');
        if (tools.length && last.includes('use a tool')) {
          progress.report(new vscode.LanguageModelToolCallPart('call-1', tools[0].name, { city: 'Paris' }));
          return;
        }
        for (const word of `sampled: ${last}`.split(/(?<= )/)) progress.report(new vscode.LanguageModelTextPart(word));
      },
      provideTokenCount: (_m, text) => (typeof text === 'string' ? text.length : 1),
    }),
  );
  return api;
};
