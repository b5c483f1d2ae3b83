// npm run gen: rewrite the generated parts of docs/ and package.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { commandsTable, configurationContribution, fill, protocolTables, settingsTable } from './generated';
import { relatedModule } from './related';

const write = (path: string, f: (t: string) => string) => writeFileSync(path, f(readFileSync(path, 'utf8')));
write('docs/protocol.md', (t) => fill(t, 'tables', protocolTables()));
write('docs/settings.md', (t) => fill(t, 'settings', settingsTable()));
write('package.json', (t) => {
  const pkg = JSON.parse(t) as { contributes: Record<string, unknown> };
  pkg.contributes.configuration = configurationContribution();
  return JSON.stringify(pkg, null, 2) + '\n';
});
write('docs/commands.md', (t) =>
  fill(
    t,
    'commands',
    commandsTable(JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: Record<string, unknown> }),
  ),
);
writeFileSync('src/gateway/search/relatedTable.ts', relatedModule('.'));
