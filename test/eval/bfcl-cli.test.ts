/**
 * `toolwatch eval bfcl` end to end against a scripted chat-completions model: a small planted set
 * taken line by line from the real BFCL files (../shared/fixtures/bfcl, copied to a temp data folder
 * at test time), answered so that every number below can be worked by hand; then the same
 * predictions through `score --bfcl` and `compare`. A second run answers all 298 real cases to pin
 * BFCL's summary rules (unweighted non-live, weighted live).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBfcl } from '../../src/eval/bfcl/load.js';
import type { Report } from '../../src/eval/report.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import type { FakeServer, Reply, ScriptRequest } from '../fakes/scripted.js';
import { groundTruthCalls } from './bfcl-helpers.js';
import { evalCli, REPO, tempDir } from './helpers.js';

const FIXTURES = path.resolve(REPO, '../shared/fixtures/bfcl');

/** The planted set: entry ids per category, in file order. */
const PLANTED: Record<string, string[]> = {
  simple_python: ['simple_python_8', 'simple_python_28', 'simple_python_53', 'simple_python_104'],
  multiple: ['multiple_6', 'multiple_98'],
  parallel: ['parallel_4', 'parallel_53'],
  parallel_multiple: ['parallel_multiple_0'],
  irrelevance: ['irrelevance_8', 'irrelevance_18'],
};

const tc = (...calls: [string, string][]): Reply => ({
  calls: calls.map(([name, args]) => ({ name, arguments: args })),
});

/** What the scripted model answers, by entry; raw argument text, so 10.0 stays a float on the wire. */
const ANSWERS: Record<string, Reply> = {
  // radius is an integer: 10.0 is a float in BFCL's eyes → invalid (JSON, and so toolwatch, sees 10)
  simple_python_8: tc(['geometry_area_circle', '{"radius": 10.0}']),
  // acceleration is a float: 10 for initial_velocity/time, 9.8 — valid
  simple_python_28: tc(['calculate_displacement', '{"initial_velocity": 10, "time": 5, "acceleration": 9.8}']),
  // optional format/upstream left out, the id in another case → valid (BFCL lower-cases strings)
  simple_python_53: tc(['fetch_DNA_sequence', '{"DNA_id": "dna123"}']),
  // bool for an integer → invalid (and a SchemaMismatch for toolwatch)
  simple_python_104: tc(['geometry_area_triangle', '{"base": 6, "height": true}']),
  // the optional K left out → valid
  multiple_6: tc(['capacitance_calculator_calculate', '{"A": 10, "d": 0.01}']),
  // the wrong tool → invalid
  multiple_98: tc(['get_current_time', '{}']),
  // parallel, in the other order, an int for the float height → valid
  parallel_4: tc(['calculate_bmi', '{"height": 5.6, "weight": 60}'], ['calculate_bmi', '{"height": 6, "weight": 80}']),
  // one of the two calls → invalid (wrong count)
  parallel_53: tc(['get_cooking_recipe', '{"dish_name": "Lasagne Bolognese", "serving_size": 4}']),
  parallel_multiple_0: tc(
    ['math_toolkit_product_of_primes', '{"count": 5}'],
    ['math_toolkit_sum_of_multiples', '{"lower_limit": 1, "upper_limit": 1000, "multiples": [3, 5]}'],
  ),
  // irrelevance: text → valid; a call → invalid
  irrelevance_8: { text: 'I have no tool to integrate; the integral is 156.' },
  irrelevance_18: tc(['calculate_vector_angle', '{"X_component": 1, "Y_component": 1}']),
};

function plantData(into: string): string {
  const dir = path.join(into, 'data');
  mkdirSync(path.join(dir, 'possible_answer'), { recursive: true });
  for (const [cat, ids] of Object.entries(PLANTED)) {
    const file = `BFCL_v4_${cat}.json`;
    const q = readFileSync(path.join(FIXTURES, file), 'utf8').split('\n');
    const keep = q.map((l, i) => [l, i] as const).filter(([l]) => ids.some((id) => l.startsWith(`{"id": "${id}"`)));
    expect(keep).toHaveLength(ids.length);
    writeFileSync(path.join(dir, file), `${keep.map(([l]) => l).join('\n')}\n`);
    if (cat === 'irrelevance') continue;
    const a = readFileSync(path.join(FIXTURES, 'possible_answer', file), 'utf8').split('\n');
    writeFileSync(path.join(dir, 'possible_answer', file), `${keep.map(([, i]) => a[i]).join('\n')}\n`);
  }
  return dir;
}

const lastUser = (body: Record<string, unknown>) => {
  const msgs = (body.messages as { role: string; content: string }[]) ?? [];
  return [...msgs].reverse().find((m) => m.role === 'user')?.content ?? '';
};
const toolNames = (body: Record<string, unknown>) =>
  ((body.tools as { function: { name: string } }[]) ?? []).map((t) => t.function.name).join(',');

describe('toolwatch eval bfcl on a planted set', () => {
  const tmp = tempDir('toolwatch-bfcl-');
  let fake: FakeServer;
  let data: string;
  const byPrompt = new Map<string, Reply>();
  const seen: Record<string, unknown>[] = [];

  beforeAll(async () => {
    data = plantData(tmp.dir);
    for (const e of loadBfcl(data).entries)
      byPrompt.set(
        `${lastUser({ messages: e.messages })}\u0000${e.tools.map((t) => t.name).join(',')}`,
        ANSWERS[e.id]!,
      );
    fake = await startChatCompletions((q: ScriptRequest) => {
      seen.push(q.body);
      return byPrompt.get(`${lastUser(q.body)}\u0000${toolNames(q.body)}`) ?? { status: 400, message: 'unscripted' };
    });
  });
  afterAll(async () => {
    await fake.close();
    tmp.remove();
  });

  const out = () => path.join(tmp.dir, 'bfcl.jsonl');
  const reportFile = () => path.join(tmp.dir, 'bfcl-report.json');

  it('runs, and BFCL accuracy per category equals the hand-worked numbers', async () => {
    const res = await evalCli([
      'bfcl',
      '--data',
      data,
      '--model',
      'm1',
      '--base-url',
      fake.baseUrl,
      '--out',
      out(),
      '--report',
      reportFile(),
      '--markdown',
      path.join(tmp.dir, 'bfcl.md'),
    ]);
    expect(res.err).not.toContain('unscripted');
    expect(res.code).toBe(0);
    const report = JSON.parse(readFileSync(reportFile(), 'utf8')) as Report;
    const m = report.bfcl!.models[0]!;
    const acc = Object.fromEntries(m.categories.map((c) => [c.category, [c.valid, c.entries]]));
    expect(acc).toEqual({
      simple_python: [2, 4], // 10.0-for-int ✗, int-for-float ✓, optional omitted ✓, bool-for-int ✗
      multiple: [1, 2], // optional K omitted ✓, wrong tool ✗
      parallel: [1, 2], // reversed order with int-for-float ✓, one call of two ✗
      parallel_multiple: [1, 1],
      irrelevance: [1, 2], // text ✓, a call ✗
    });
    // BFCL's non-live AST summary: the unweighted mean of the four categories.
    expect(m.summary.nonLiveAst.value).toBeCloseTo((0.5 + 0.5 + 0.5 + 1) / 4, 10);
    expect(m.summary.liveAst).toMatchObject({
      value: null,
      missing: ['live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple'],
    });
    const err = (id: string) => m.entries.find((e) => e.id === id)!.errorType;
    expect([
      err('simple_python_8'),
      err('simple_python_104'),
      err('multiple_98'),
      err('parallel_53'),
      err('irrelevance_18'),
    ]).toEqual([
      'type_error:simple',
      'type_error:simple',
      'simple_function_checker:wrong_func_name',
      'parallel_function_checker_no_order:wrong_count',
      'irrelevance_error:decoder_success',
    ]);
    // toolwatch's view of the same answers: JSON reads 10.0 as 10, so simple_python_8 passes there;
    // the bool is a SchemaMismatch; the wrong tool is a selection miss.
    const sp = m.categories.find((c) => c.category === 'simple_python')!.toolwatch;
    expect(sp).toMatchObject({ calls: 4, valid: 3, SchemaMismatch: 1 });
    expect(sp.strictPassRate).toMatchObject({ numerator: 3, denominator: 4 });
    expect(m.categories.find((c) => c.category === 'multiple')!.toolwatch.selectionAccuracy).toMatchObject({
      numerator: 1,
      denominator: 2,
    });
    expect(report.models[0]!.byTag.parallel!.strictPassRate).toMatchObject({ numerator: 1, denominator: 2 });
    expect(res.out).toContain('simple_python: BFCL 50.0% (2/4)');
    expect(readFileSync(path.join(tmp.dir, 'bfcl.md'), 'utf8')).toContain('| simple_python | 50.0% (2/4) |');
  });

  it('sent the tools as BFCL sends them, at BFCL’s temperature', () => {
    const body = seen.find((b) => toolNames(b) === 'calculate_displacement')!;
    const fn = (body.tools as { type: string; function: any }[])[0]!;
    expect(fn.type).toBe('function');
    expect(fn.function.description).toMatch(/ Note that the provided function is in Python 3 syntax\.$/);
    expect(fn.function.parameters.properties.acceleration).toMatchObject({ type: 'number', format: 'float' });
    expect(body.temperature).toBe(0.001);
  });

  it('score --bfcl and bfcl --pred give the same numbers from the predictions; compare reads the report', async () => {
    const a = await evalCli(['score', '--bfcl', data, '--pred', out(), '--report', path.join(tmp.dir, 'again.json')]);
    expect(a.code).toBe(0);
    const again = JSON.parse(readFileSync(path.join(tmp.dir, 'again.json'), 'utf8')) as Report;
    const first = JSON.parse(readFileSync(reportFile(), 'utf8')) as Report;
    expect(again.bfcl!.models[0]!.categories).toEqual(first.bfcl!.models[0]!.categories);
    const b = await evalCli(['bfcl', '--data', data, '--category', 'irrelevance', '--pred', out()]);
    expect(b.code).toBe(0);
    expect(b.out).toContain('irrelevance: BFCL 50.0% (1/2)');
    const c = await evalCli(['compare', '--report', path.join(tmp.dir, 'again.json'), '--baseline', reportFile()]);
    expect(c.code).toBe(0);
    expect(c.out).toContain('bfcl simple_python: 50.0% → 50.0%');
  });

  it('refuses predictions of other data, and bad options, with exit 2 and nothing written', async () => {
    writeFileSync(
      path.join(data, 'BFCL_v4_simple_python.json'),
      readFileSync(path.join(data, 'BFCL_v4_simple_python.json'), 'utf8').split('\n').slice(0, 3).join('\n') + '\n',
    );
    const r1 = await evalCli(['score', '--bfcl', data, '--pred', out()]);
    expect(r1.code).toBe(2);
    const r2 = await evalCli(['bfcl', '--data', data, '--category', 'multi_turn_base', '--pred', out()]);
    expect(r2.code).toBe(2);
    expect(r2.err).toContain('multi_turn_base');
  });
});

describe('toolwatch eval bfcl on all 298 real cases', () => {
  const tmp = tempDir('toolwatch-bfcl-all-');
  let fake: FakeServer;
  const byPrompt = new Map<string, Reply>();

  beforeAll(async () => {
    for (const e of loadBfcl(FIXTURES).entries) {
      // simple_python and live_simple answered with text (all invalid), everything else right.
      const reply: Reply =
        e.category === 'simple_python' || e.category === 'live_simple' || e.category.includes('irrelevance')
          ? { text: 'No.' }
          : e.category === 'live_relevance'
            ? { calls: [{ name: e.tools[0]!.name, arguments: '{}' }] }
            : { calls: groundTruthCalls(e.answers!) };
      byPrompt.set(`${lastUser({ messages: e.messages })}\u0000${e.tools.map((t) => t.name).join(',')}`, reply);
    }
    expect(byPrompt.size).toBe(298);
    fake = await startChatCompletions(
      (q) => byPrompt.get(`${lastUser(q.body)}\u0000${toolNames(q.body)}`) ?? { status: 400, message: 'unscripted' },
    );
  });
  afterAll(async () => {
    await fake.close();
    tmp.remove();
  });

  it('summarises as BFCL: non-live AST unweighted over categories, live AST weighted by entries', async () => {
    const rep = path.join(tmp.dir, 'r.json');
    const res = await evalCli([
      'bfcl',
      '--data',
      FIXTURES,
      '--model',
      'm',
      '--base-url',
      fake.baseUrl,
      '--out',
      path.join(tmp.dir, 'p.jsonl'),
      '--report',
      rep,
      '--concurrency',
      '8',
    ]);
    expect(res.code).toBe(0);
    const m = (JSON.parse(readFileSync(rep, 'utf8')) as Report).bfcl!.models[0]!;
    const acc = Object.fromEntries(m.categories.map((c) => [c.category, `${c.valid}/${c.entries}`]));
    expect(acc).toEqual({
      simple_python: '0/45',
      multiple: '30/30',
      parallel: '35/35',
      parallel_multiple: '35/35',
      irrelevance: '25/25',
      live_simple: '0/35',
      live_multiple: '35/35',
      live_parallel: '10/10',
      live_parallel_multiple: '15/15',
      live_irrelevance: '25/25',
      live_relevance: '8/8',
    });
    expect(m.summary.nonLiveAst.value).toBeCloseTo(3 / 4, 10); // (0 + 1 + 1 + 1) / 4, not 100/145
    expect(m.summary.liveAst.value).toBeCloseTo(60 / 95, 10); // (0·35 + 35 + 10 + 15) / 95, not 3/4
  });
});
