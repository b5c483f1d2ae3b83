// mcpx: Connect Agents… in the real editor: two fixture agents (Cursor, Gemini CLI) in a temporary home, both
// checked in the multi-select QuickPick through the workbench's own widget, the diff shown, applied; the
// agents status item counts them; unchecked again, their files are back byte for byte.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { drive, pageTest } from './harness';

const CURSOR = '{\n  "mcpServers": {\n    "docs": { "command": "npx", "args": ["-y", "docs-mcp"] }\n  }\n}\n';
const GEMINI = '{\n  "theme": "Dracula",\n  "mcpServers": {}\n}\n';

/** HOME and XDG_CONFIG_HOME point at a fresh folder while `fn` runs (the agents' files are found there). */
async function withHome<T>(fn: (home: string) => Promise<T>): Promise<T> {
  const home = mkdtempSync(join(tmpdir(), 'mcpx-agents-'));
  const before = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
  try {
    return await fn(home);
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(home, { recursive: true, force: true });
  }
}

export const connectAgents = pageTest(
  'mcpx: Connect Agents… checks two found agents, shows the diff, writes the shim entry; the status item counts them; unchecked, their files are as they were',
  async (x) => {
    await withHome(async (home) => {
      const cursor = join(home, '.cursor', 'mcp.json');
      const gemini = join(home, '.gemini', 'settings.json');
      mkdirSync(join(home, '.cursor'));
      mkdirSync(join(home, '.gemini'));
      writeFileSync(cursor, CURSOR);
      writeFileSync(gemini, GEMINI);

      const on = vscode.commands.executeCommand<Array<{ id: string; status: string }>>('mcpx.connectAgents');
      drive(
        { pick: 'Cursor' },
        { pick: 'Gemini CLI' },
        { key: 'Enter' },
        { fill: 'Keep their own' },
        { fill: 'Apply' },
      );
      const outcomes = await on;
      assert.deepEqual(
        outcomes?.map((o) => [o.id, o.status]),
        [
          ['cursor', 'connected'],
          ['gemini', 'connected'],
        ],
      );
      const diff = vscode.workspace.textDocuments.find((d) => d.languageId === 'diff')?.getText() ?? '';
      assert.match(diff, /\+\+\+ .*\.cursor[\\/]mcp\.json/);
      assert.match(diff, /\+\+\+ .*\.gemini[\\/]settings\.json/);
      for (const file of [cursor, gemini]) {
        const entry = (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { args: string[] }> })
          .mcpServers.mcpx;
        assert.ok(entry, `${file} has the entry`);
        assert.deepEqual(entry.args.slice(-3), ['serve', '--transport', 'stdio']);
      }
      assert.ok(readFileSync(cursor, 'utf8').includes('"docs": { "command": "npx", "args": ["-y", "docs-mcp"] },'));
      await x.agents.refresh();
      assert.equal(x.agents.item.text, '$(link) agents 2');

      const off = vscode.commands.executeCommand<Array<{ id: string; status: string }>>('mcpx.connectAgents');
      drive({ pick: 'Cursor' }, { pick: 'Gemini CLI' }, { key: 'Enter' }, { fill: 'Apply' });
      assert.deepEqual(
        (await off)?.map((o) => o.status),
        ['disconnected', 'disconnected'],
      );
      assert.equal(readFileSync(cursor, 'utf8'), CURSOR);
      assert.equal(readFileSync(gemini, 'utf8'), GEMINI);
    });
  },
);
