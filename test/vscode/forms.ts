// The forms a question or a tool's arguments are asked in: the webview form for a nested schema (in a dark
// and a high-contrast theme, by keyboard only), the QuickPick flow going back a step.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { drive, pageTest } from './harness';
import { until } from '../harness/wait';

/** Switches the workbench's colour theme (the `workbench.colorTheme` setting) and waits until it is on. */
async function theme(name: string | undefined, kind: vscode.ColorThemeKind): Promise<void> {
  await vscode.workspace.getConfiguration('workbench').update('colorTheme', name, vscode.ConfigurationTarget.Global);
  await until(() => vscode.window.activeColorTheme.kind === kind, {
    what: `the ${name ?? 'default'} theme`,
    every: 100,
  });
  await new Promise((r) => setTimeout(r, 500)); // the webview's --vscode-* variables follow
}

const resultHas = (text: string) =>
  until(
    () =>
      vscode.window.activeTextEditor?.document.getText().includes(text) ? vscode.window.activeTextEditor : undefined,
    { what: 'the result editor', every: 100 },
  );

export const webviewForm = pageTest(
  'a nested schema opens the webview form: an invalid answer is refused in the form, a valid one goes through',
  async () => {
    const done = vscode.commands.executeCommand('mcpx.callTool', 'up', 'nested');
    drive(
      { shot: 'webview-form', when: 'webview' },
      {
        webview: [
          { fill: ['server.port', '8080'] },
          { click: '#accept' },
          { text: ['#problem', 'host'] },
          { fill: ['server.host', 'example.org'] },
          { fill: ['tags', 'a\nb'] },
          { click: '#accept' },
        ],
      },
      // Not marked read-only: the call is confirmed first (src/vscode/toolTrust.ts).
      { pick: 'Allow once' },
    );
    await done;
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.getText().includes('example.org')
          ? vscode.window.activeTextEditor
          : undefined,
      { what: 'the result editor', every: 100 },
    );
    assert.match(editor.document.getText(), /\{"server":\{"host":"example.org","port":8080\},"tags":\["a","b"\]\}/);
  },
);

export const webviewFormThemes = pageTest(
  'Editor fidelity: the webview form in a dark and a high-contrast theme (VS Code components), used by keyboard only, the validation message beside its field',
  async () => {
    const before = vscode.window.activeColorTheme.kind;
    try {
      await theme('Default Dark Modern', vscode.ColorThemeKind.Dark);
      const done = vscode.commands.executeCommand('mcpx.callTool', 'up', 'nested');
      // Keyboard only: the first field has the focus; Tab to the port; Ctrl+Enter accepts; the missing host is
      // refused beside its field, which takes the focus back.
      drive({
        webview: [
          { focused: 'server.host' },
          { press: 'Tab' },
          { focused: 'server.port' },
          { type: '8080' },
          { press: 'Control+Enter' },
          { text: ['[id="server.host-helper"]', 'required'] },
          { focused: 'server.host' },
        ],
      });
      drive({ shot: 'webview-form-dark', when: 'webview' });
      drive({
        webview: [
          { type: 'example.org' },
          { press: 'Tab' },
          { press: 'Tab' },
          { focused: 'tags' },
          { type: 'a' },
          { press: 'Enter' },
          { type: 'b' },
          { press: 'Control+Enter' },
        ],
      });
      // Not marked read-only: the call is confirmed first (src/vscode/toolTrust.ts).
      drive({ pick: 'Allow once' });
      await done;
      const dark = await resultHas('example.org');
      assert.match(dark.document.getText(), /\{"server":\{"host":"example.org","port":8080\},"tags":\["a","b"\]\}/);

      await theme('Default High Contrast', vscode.ColorThemeKind.HighContrast);
      const again = vscode.commands.executeCommand('mcpx.callTool', 'up', 'nested');
      drive({
        webview: [
          { fill: ['server.port', '8081'] },
          { click: '#accept' },
          { text: ['[id="server.host-helper"]', 'required'] },
        ],
      });
      drive({ shot: 'webview-form-high-contrast', when: 'webview' });
      drive({ webview: [{ fill: ['server.host', 'hc.example'] }, { click: '#accept' }] }, { pick: 'Allow once' });
      await again;
      await resultHas('hc.example');
    } finally {
      await theme(undefined, before).catch(() => undefined);
    }
  },
);

export const formFlowBack = pageTest(
  'the form flow goes back a step; a value that is not a number is refused in place',
  async () => {
    const done = vscode.commands.executeCommand('mcpx.callTool', 'up', 'add');
    // a = 1, back, a = 2; b = "x" refused, b = 3; accept: the sum says which values went.
    drive(
      { fill: '1' },
      { back: true },
      { fill: '2' },
      { fill: 'x' },
      { fill: '3' },
      { pick: 'Accept' },
      { pick: 'Allow once' },
    );
    await done;
    const editor = await until(
      () =>
        vscode.window.activeTextEditor?.document.getText().includes('"sum"')
          ? vscode.window.activeTextEditor
          : undefined,
      { what: 'the sum', every: 100 },
    );
    assert.match(editor.document.getText(), /\{"sum":5\}/);
  },
);
