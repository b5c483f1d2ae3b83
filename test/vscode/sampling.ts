// Sampling answered in the editor through VS Code's language model API (a test model, test/vscode/lm-provider):
// consent, the model picked, the answer reviewed; maxTokens, the system prompt, stop sequences, tools.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { call, drive, type Json, pageTest, textOf } from './harness';

/** What the test language model (test/vscode/lm-provider) received, newest last. */
interface LmReceived {
  messages: Array<{ role: string; text: string }>;
  modelOptions: Json;
  tools: Json[];
  toolMode: string;
}
const lmReceived = (): LmReceived[] =>
  (vscode.extensions.getExtension('mcpx.mcpx-test-lm')!.exports as { received: LmReceived[] }).received;

export const sampling = pageTest(
  'sampling: consent, a model the person picks (a test language model), the answer reviewed before it goes back',
  async (x) => {
    const url = x.endpoint()!;
    const pending = call(url, 'sample', { text: 'Say hi' });
    drive(
      { shot: 'sampling-consent', when: 'quick' },
      { pick: 'Choose a model' },
      { pick: 'mcpx test echo' },
      { shot: 'sampling-review', when: 'quick' },
      { pick: 'Send' },
    );
    const r = await pending;
    assert.ok(textOf(r).startsWith('{'), textOf(r));
    const answer = JSON.parse(textOf(r)) as Json;
    assert.deepEqual(answer.content, { type: 'text', text: 'sampled: Say hi' });
    assert.equal(answer.model, 'mcpx-test-echo');
    // Declining is one click.
    const declined = call(url, 'sample', { text: 'Again' });
    drive({ pick: 'Decline' });
    assert.match(textOf(await declined), /declined/);
  },
);

export const samplingFaithful = pageTest(
  'Editor fidelity: sampling keeps maxTokens (the stream cut there), the system prompt as the first user message, stopSequences and temperature as model options; the departures shown at consent',
  async (x) => {
    const url = x.endpoint()!;
    const seen = lmReceived().length;
    const pending = call(url, 'sample', {
      text: 'one two three four five six',
      sampling: { maxTokens: 12, systemPrompt: 'Be brief.', temperature: 0.3, stopSequences: ['STOP'] },
    });
    drive(
      { shot: 'sampling-departures', when: 'quick' },
      { pick: 'Choose a model' },
      { pick: 'mcpx test echo' },
      { pick: 'Send' },
    );
    const answer = JSON.parse(textOf(await pending)) as Json;
    // The test model counts a token per character: 12 tokens are "sampled: one".
    assert.deepEqual(answer.content, { type: 'text', text: 'sampled: one' });
    assert.equal(answer.stopReason, 'maxTokens');
    const got = lmReceived()[seen]!;
    assert.deepEqual(got.messages, [
      { role: 'user', text: 'Be brief.' },
      { role: 'user', text: 'one two three four five six' },
    ]);
    assert.deepEqual(got.modelOptions, { maxTokens: 12, stopSequences: ['STOP'], temperature: 0.3 });
    // A stop sequence in the answer cuts it there, whatever the model made of the option.
    const stopped = call(url, 'sample', { text: 'alpha STOP beta', sampling: { stopSequences: ['STOP'] } });
    drive({ pick: 'Choose a model' }, { pick: 'mcpx test echo' }, { pick: 'Send' });
    const cut = JSON.parse(textOf(await stopped)) as Json;
    assert.deepEqual(cut.content, { type: 'text', text: 'sampled: alpha ' });
    assert.equal(cut.stopReason, 'stopSequence');
  },
);

export const samplingTools = pageTest(
  "Editor fidelity: sampling with tools (2025-11-25): the tools reach the model through the API's tool calling, its call comes back as a tool_use block",
  async (x) => {
    const url = x.endpoint()!;
    const seen = lmReceived().length;
    const weather = {
      name: 'get_weather',
      description: 'The weather of a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    };
    const pending = call(url, 'sample', {
      text: 'use a tool for the weather in Paris',
      sampling: { tools: [weather], toolChoice: { mode: 'required' } },
    });
    drive(
      { pick: 'Choose a model' },
      { pick: 'mcpx test echo' },
      { shot: 'sampling-tool-call', when: 'quick' },
      { pick: 'Send' },
    );
    const answer = JSON.parse(textOf(await pending)) as Json;
    assert.deepEqual(answer.content, [
      { type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    assert.equal(answer.stopReason, 'toolUse');
    const got = lmReceived()[seen]!;
    assert.deepEqual(got.tools, [weather]);
    assert.equal(got.toolMode, 'required');
    // A model that refuses tools is asked again without them (toolChoice auto): the answer is text.
    const asked = lmReceived().length;
    const refused = call(url, 'sample', { text: 'refuse tools please', sampling: { tools: [weather] } });
    drive({ pick: 'Choose a model' }, { pick: 'mcpx test echo' }, { pick: 'Send' });
    const plain = JSON.parse(textOf(await refused)) as Json;
    assert.deepEqual(plain.content, { type: 'text', text: 'sampled: refuse tools please' });
    assert.deepEqual(
      lmReceived()
        .slice(asked)
        .map((r) => r.tools.length),
      [1, 0],
    );
  },
);
