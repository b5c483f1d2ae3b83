// The layer check (`npm run lint`): the rules are read from the layer table in ARCHITECTURE.md (between
// `<!-- layers:begin -->` and `<!-- layers:end -->`), so the table on the page is the rule that runs.
// Columns: layer | path | may import | what it holds. Paths are backticked; one ending in `/` is a
// folder, any other a file. A module may import its own layer and the layers its row names; node
// builtins and npm packages are not layers (the restrictions on them are below the generated rules).
// Cycles are forbidden everywhere in src, and every file under src/ must belong to a row.
//
// Run: depcruise src --config .dependency-cruiser.cjs
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const BEGIN = '<!-- layers:begin -->';
const END = '<!-- layers:end -->';

/** @returns {{ name: string, paths: string[], mayImport: string[] }[]} */
function readLayers(file) {
  const text = readFileSync(file, 'utf8');
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${file}: no layer table between ${BEGIN} and ${END}`);
  const rows = text
    .slice(from + BEGIN.length, to)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('|'))
    .map((l) =>
      l
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split('|')
        .map((c) => c.trim()),
    );
  const [header, separator, ...body] = rows;
  const want = ['layer', 'path', 'may import'];
  if (!header || want.some((w, i) => header[i] !== w) || !/^[-: ]+$/.test(separator?.join('') ?? '')) {
    throw new Error(`${file}: the layer table must start with | ${want.join(' | ')} | … and a separator row`);
  }
  const layers = body.map((cells, i) => {
    const [name, pathCell = '', mayCell = ''] = cells;
    const paths = [...pathCell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    if (!/^[a-z][\w-]*$/.test(name ?? '')) throw new Error(`${file}: layer row ${i + 1} has no layer name`);
    if (paths.length === 0) throw new Error(`${file}: layer ${name} names no backticked path`);
    const mayImport = mayCell
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return { name, paths, mayImport };
  });
  const names = new Set(layers.map((l) => l.name));
  if (names.size !== layers.length) throw new Error(`${file}: a layer name appears twice`);
  for (const l of layers) {
    for (const m of l.mayImport) {
      if (!names.has(m)) throw new Error(`${file}: layer ${l.name} may import "${m}", which is no layer`);
    }
  }
  return layers;
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `src/x/` is the folder src/x, `src/x.ts` exactly that file. */
const pathRegex = (p) => (p.endsWith('/') ? `^${escape(p)}` : `^${escape(p)}$`);

const layersFile = join(__dirname, 'ARCHITECTURE.md');
const layers = readLayers(layersFile);
const byName = new Map(layers.map((l) => [l.name, l]));
const regexesOf = (name) => byName.get(name).paths.map(pathRegex);
const allLayerPaths = layers.flatMap((l) => l.paths.map(pathRegex));

const layerRules = layers.map((l) => ({
  name: `layer-${l.name}`,
  severity: 'error',
  comment:
    `${l.name} (${l.paths.join(', ')}) may import only ${[l.name, ...l.mayImport].join(', ')} ` +
    `(ARCHITECTURE.md, the layer table)`,
  from: { path: regexesOf(l.name) },
  to: { path: '^src/', pathNot: [l.name, ...l.mayImport].flatMap(regexesOf) },
}));

// `vscode` has no package in node_modules (only @types/vscode): it resolves to nothing or to the types.
const VSCODE = ['^vscode$', '(^|/)node_modules/@types/vscode/'];

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles in src (dependencies point down only).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'unmapped-module',
      severity: 'error',
      comment: 'Every file under src/ belongs to a row of the layer table in ARCHITECTURE.md.',
      // "fewer than 100 dependents" (the schema's maximum) stands for "any module".
      module: { path: '^src/', pathNot: allLayerPaths, numberOfDependentsLessThan: 100 },
      from: {},
    },
    {
      name: 'protocol-pure',
      severity: 'error',
      comment: 'src/protocol/ is pure data and functions: no node builtin, no npm package but zod.',
      from: { path: regexesOf('protocol') },
      to: {
        dependencyTypesNot: ['local', 'type-only'],
        couldNotResolve: false,
        pathNot: ['(^|/)node_modules/zod/'],
      },
    },
    {
      name: 'server-no-io',
      severity: 'error',
      comment: 'src/server/ is transport-free: no node:http, node:net, node:child_process (transport/ and upstream/ do I/O).',
      from: { path: '^src/server/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(http|net|child_process)$' },
    },
    {
      name: 'otel-only-in-its-bundle',
      severity: 'error',
      comment:
        'Only src/telemetry/otel.ts (its own bundle, dist/otel.js, loaded only when telemetry is on) imports @opentelemetry/ packages.',
      from: { path: '^src/', pathNot: '^src/telemetry/otel\\.ts$' },
      to: { path: '(^|/)node_modules/@opentelemetry/' },
    },
    {
      name: 'otel-loaded-not-imported',
      severity: 'error',
      comment: 'src/telemetry/otel.ts is its own bundle, required by telemetry/trace.ts at run time: no module imports it.',
      from: {},
      to: { path: '^src/telemetry/otel\\.ts$' },
    },
    {
      name: 'redis-only-in-its-bundle',
      severity: 'error',
      comment:
        'Only src/redis/ (its own bundle, dist/store-redis.js, loaded only when store.url names Redis) imports @redis/ packages.',
      from: { path: '^src/', pathNot: '^src/redis/' },
      to: { path: '(^|/)node_modules/@redis/' },
    },
    {
      name: 'vscode-only-in-editor',
      severity: 'error',
      comment: 'Only src/vscode/ and src/extension.ts may import vscode (the gateway runs headless too).',
      from: { pathNot: ['^src/vscode/', '^src/extension\\.ts$'] },
      to: { path: VSCODE },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing (vscode excepted: it exists only in the extension host).',
      from: {},
      to: { couldNotResolve: true, pathNot: VSCODE },
    },
  ],
  options: {
    // TypeScript 7 has no JS API, so dependency-cruiser parses .ts with swc. swc reads the source
    // itself, so type-only imports (`import type`, `import { type X }`) are dependencies too: a
    // layer may not even import types from above. (tsPreCompilationDeps only switches the tsc
    // parser; it is set for the day that parser is back.)
    parser: 'swc',
    tsPreCompilationDeps: true,
    preserveSymlinks: true,
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6', 'cjs'],
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      exportsFields: ['exports'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
