// Tool search's words (docs/gateway.md "Tool search"): the Porter2 stems, the related words (the hand-written
// variants and WordNet's synonyms, the generated table in step with its script), the hints an address or a
// file name adds, and what they do to a ranking over the reference memory server's own tools.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ToolSearch, WELL, firstSentence } from '../../src/gateway/search/index';
import { Related, related } from '../../src/gateway/search/related';
import { hints, stem, term } from '../../src/gateway/search/terms';
import { relatedModule } from '../../scripts/related';
import { evalQueries, realServers } from '../fixtures/search/data';
import { repoRoot } from '../harness/gateway';

const all = { servers: ['memory'], allows: () => true };

describe('terms', () => {
  test('Porter2: inflections and derived forms are one term; stop words are dropped', () => {
    assert.equal(term('relations'), term('relation'));
    assert.equal(term('relating'), term('related'));
    assert.equal(term('directories'), term('directory'));
    assert.equal(term('Deleting'), term('delete'));
    assert.notEqual(term('relationship'), term('relation'), 'the stemmer keeps these apart; the variants join them');
    assert.equal(term('the'), null);
    assert.equal(term('which'), null);
    // Not English letters, or too long to be a word: kept as they are, lower-cased.
    assert.equal(term('Überweisung'), 'überweisung');
    assert.equal(term('x'.repeat(41)), 'x'.repeat(41));
    assert.equal(stem('get'), 'get', 'stem keeps what term drops');
  });

  test('hints: an address is a URL, a file name a file, #name a channel, @name a user', () => {
    assert.deepEqual(hints('open example.com in the browser'), ['url']);
    assert.deepEqual(hints('fetch https://x.test/a'), ['url']);
    assert.deepEqual(hints('rename report.md to summary.md'), ['file']);
    assert.deepEqual(hints('post in #general for @ana'), ['channel', 'user']);
    assert.deepEqual(hints('list my issues'), []);
  });

  test('the first sentence of a description', () => {
    assert.equal(firstSentence('Create a file. Overwrites one.'), 'Create a file');
    assert.equal(firstSentence('Read v1.2 files\nMore.'), 'Read v1.2 files');
    assert.equal(firstSentence(''), '');
  });
});

describe('related words', () => {
  test('a tool word -> the stems of the variants and of the synonyms, each once, stop words left out', () => {
    const r = new Related('delete cancel erase remove\nlist enumerate\n', {
      delete: 'remove forget the',
      get: 'fetch',
    });
    assert.deepEqual(r.of('deleting'), { variants: ['remov', 'forget'], synonyms: ['cancel', 'eras'] });
    assert.deepEqual(r.of('list').synonyms, ['enumer']);
    assert.deepEqual(r.of('get').variants, ['fetch'], 'a tool word search drops as a query word still has variants');
    assert.deepEqual(r.of('unknown'), { variants: [], synonyms: [] });
  });

  test("the shipped tables relate the issue's words: remove/delete, relationship/relation, remember/store/create", () => {
    const r = related();
    assert.ok(r.of('delete').variants.includes(stem('remove')));
    assert.ok(r.of('relations').variants.includes(stem('relationship')));
    assert.ok(r.of('create').variants.includes(stem('remember')));
    assert.ok(r.of('create').variants.includes(stem('store')));
    // From WordNet: a synonym of the verb, and the verb's hypernym.
    assert.ok(r.of('allowed').synonyms.includes(stem('permit')));
    assert.ok(r.of('select').synonyms.includes(stem('choose')) || r.of('select').variants.includes(stem('choose')));
  });

  test('the generated table is what scripts/related.ts makes of WordNet (npm run gen), with its licence', () => {
    const root = repoRoot();
    const file = readFileSync(join(root, 'src', 'gateway', 'search', 'relatedTable.ts'), 'utf8');
    assert.equal(file, relatedModule(root));
    assert.match(file, /\/\*! [\s\S]*WordNet 3\.0 Copyright 2006 by Princeton University/);
    assert.ok(file.length < 20_000, `${file.length} bytes`);
  });

  test("over the memory server: the issue's tasks find the tools meant, which the bare words do not", () => {
    const index = (r?: Related) => {
      const s = new ToolSearch(r);
      s.sync(new Map([['memory', realServers().memory!.tools]]), () => true);
      return (q: string) => s.search(q, new Set(['memory']), all, 9).map((h) => h.name);
    };
    const ask = index();
    const bare = index(new Related('', {}));
    // "remove" is "delete", "relationship" is "relation": among the first three (it was not found at all).
    assert.ok(ask('remove the relationship between two entities').slice(0, 3).includes('delete_relations'));
    assert.ok(!bare('remove the relationship between two entities').includes('delete_relations'));
    // "forget" is "delete", "person" an entity.
    assert.equal(ask('forget a person entirely')[0], 'delete_entities');
    assert.deepEqual(bare('forget a person entirely'), ['read_graph']);
    // "remember" is "create" (or "add").
    assert.ok(['create_entities', 'add_observations'].includes(ask('remember facts about a person')[0]!));
    assert.deepEqual(bare('remember facts about a person'), []);
  });
});

describe('"matches well"', () => {
  // Tasks nothing among the real servers fits: the tuning half's, and the questions of
  // test/fixtures/search/questions.json (written for another tool set) whose tool no real server has.
  const elsewhere = (
    JSON.parse(readFileSync(join(repoRoot(), 'test', 'fixtures', 'search', 'questions.json'), 'utf8')) as {
      questions: Array<{ q: string; expect: string }>;
    }
  ).questions
    .filter(({ expect }) =>
      /^(calendar|jira|docker)\/|\/(git_blame|get_workflow_run_logs|ssl_certificate)$/.test(expect),
    )
    .map(({ q }) => q);

  test(`WELL (${WELL}) as chosen on the tuning half: no answer in the first five is withheld, what matches next to nothing is told so`, (t) => {
    const s = new ToolSearch();
    const lists = new Map(Object.entries(realServers()).map(([k, v]) => [k, v.tools]));
    s.sync(lists, () => true);
    const offer = { servers: [...lists.keys()], allows: () => true };
    const hits = (q: string) => s.search(q, new Set(lists.keys()), offer, 5);
    const tune = evalQueries().filter((x) => x.half === 'tune');
    // The first hit's strength of each tuning task answered in the first five: each reaches WELL.
    const answered = tune.flatMap((x) => {
      const found = hits(x.q);
      return found.some((h) => x.expect.includes(`${h.server}/${h.name}`)) ? [found[0]!.strength] : [];
    });
    const misfits = [...tune.filter((x) => x.expect.length === 0).map((x) => x.q), ...elsewhere];
    const strength = (q: string) => hits(q)[0]?.strength ?? 0;
    const told = misfits.filter((q) => strength(q) < WELL);
    t.diagnostic(
      `answered in the first five: ${answered.length}, weakest first hit ${Math.min(...answered).toFixed(2)}`,
    );
    t.diagnostic(`misfits told nothing matches well: ${told.length} of ${misfits.length}`);
    assert.equal(elsewhere.length, 10);
    assert.ok(answered.length >= 50 && answered.every((x) => x >= WELL));
    // WELL is the highest multiple of 0.05 up to the weakest: 0.05 more would withhold an answer.
    assert.ok(Math.min(...answered) < WELL + 0.05);
    // The tasks that match next to nothing are told so: "play some relaxing music", "translate this
    // paragraph into French", three calendar tasks (5 of 15; the rest match words of a tool that does
    // something else, which a threshold cannot tell from a weak right answer).
    assert.ok(told.length >= 5, `${told.length} of ${misfits.length}`);
    assert.ok(told.includes('play some relaxing music') && told.includes('translate this paragraph into French'));
  });
});
