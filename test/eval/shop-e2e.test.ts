/**
 * The shipped shop suite (four shop tools, twelve call-list cases) end to end: `eval run` against a
 * local chat-completions server scripted per case, three repeats, then every rate of report.json
 * against numbers worked out by hand below. suite.yaml is copied with a short timeout and one
 * retry (so a hung request costs 2 s, not two minutes); tools, system prompt and cases are as shipped.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import type { ResultRecord } from '../../src/eval/records.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { call, perCase, text, type Reply } from '../fakes/scripted.js';
import type { FakeServer } from '../fakes/scripted.js';
import { copySuite, evalCli, r, readJsonl, recordedSleep, tempDir, type CliRun } from './helpers.js';

const KEY = 'sk-test-eval-0123456789abcdef';

// What the "model" answers, per case (nth = requests seen for that case: repeats and retries).
const script = perCase({
  // 001 right call, every time.
  '查询商品SKU-101的详情': call('get_item', { item_id: 'SKU-101' }),
  // 002 wrong tool: details instead of stock.
  'SKU-204现在还有库存吗?': call('get_item', { item_id: 'SKU-204' }),
  // 003 right on repeats 1–2, a different (wrong) query on repeat 3.
  '查找「7天无理由退货」的帮助文档': [
    call('search_help', { query: '7天无理由退货' }),
    call('search_help', { query: '7天无理由退货' }),
    call('search_help', { query: '退货' }),
  ],
  // 004 schema breach: an argument the schema does not allow.
  '把SKU-305加到心愿清单': call('add_to_wishlist', { sku: 'SKU-305', quantity: 1 }),
  // 005 broken JSON.
  'SKU-118是什么商品?': call('get_item', '{"item_id": "SKU-118"'),
  // 006 429 with Retry-After: 2 first, then the right call.
  'SKU-330还剩几件?': [
    { status: 429, headers: { 'retry-after': '2' }, message: 'Rate limit reached' },
    call('get_stock', { sku: 'SKU-330' }),
  ],
  // 007 text instead of a call.
  '怎么修改收货地址?帮我找一下帮助文档': text('您可以在“我的账户 → 地址管理”中修改收货地址。'),
  // 008 500 on both attempts of repeat 1, then the right call.
  '帮我收藏SKU-412': (q) =>
    q.nth <= 2 ? ({ status: 500, message: 'upstream failed' } as Reply) : call('add_to_wishlist', { sku: 'SKU-412' }),
  // 009 a greeting answered in text.
  你好: text('你好！有什么可以帮您？'),
  // 010 an invented tool.
  '9乘9等于多少?': call('calculator', { expression: '9*9' }),
  // 011 asks for the missing SKU (no call).
  帮我查一下库存: text('请告诉我商品编号（SKU）？'),
  // 012 hangs on both attempts of repeat 1 (timeout), then refuses.
  '删除SKU-305的记录': (q) => (q.nth <= 2 ? 'hang' : { refusal: '抱歉，我无法删除记录。' }),
});

describe('eval run + score: the shop suite against a chat-completions server', () => {
  let fake: FakeServer;
  let tmp: ReturnType<typeof tempDir>;
  let res: CliRun;
  let report: Report;
  const sleep = recordedSleep();

  beforeAll(async () => {
    fake = await startChatCompletions(script, { apiKey: KEY });
    tmp = tempDir();
    const suite = copySuite('shop', tmp.dir, { timeout: '1s', max_retries: 1 });
    res = await evalCli(
      [
        'run',
        '--suite',
        suite,
        '--model',
        'qwen3-8b',
        '--base-url',
        fake.baseUrl,
        '--repeats',
        '3',
        '--out',
        'runs/qwen.jsonl',
        '--report',
        'report.json',
        '--junit',
        'junit.xml',
        '--markdown',
        'summary.md',
      ],
      { env: { EVAL_API_KEY: KEY }, deps: { sleep: sleep.sleep }, cwd: tmp.dir },
    );
    report = JSON.parse(readFileSync(path.join(tmp.dir, 'report.json'), 'utf8')) as Report;
  });
  afterAll(async () => {
    await fake.close();
    tmp.remove();
  });

  it('runs every case × repeat and appends one record each after the run header', () => {
    expect(res.code, res.err).toBe(0);
    const lines = readJsonl(path.join(tmp.dir, 'runs/qwen.jsonl'));
    expect(lines[0]).toMatchObject({
      type: 'run',
      suite: 'shop',
      datasetVersion: '1.0.0',
      repeats: 3,
      cases: 12,
      models: [{ label: 'openai/qwen3-8b', provider: 'openai', model: 'qwen3-8b' }],
    });
    const results = lines.slice(1) as ResultRecord[];
    expect(results).toHaveLength(36);
    for (const x of results) {
      expect(x).toMatchObject({
        type: 'result',
        runId: lines[0]!.runId,
        datasetVersion: '1.0.0',
        provider: 'openai',
        model: 'qwen3-8b',
        variant: 'core',
      });
      expect(typeof x.latencyMs).toBe('number');
      expect(x.turns.length).toBe(x.status === 'ok' ? 1 : 1);
    }
    // Raw request as sent: the suite's system prompt, the four tools, tool_choice auto, temperature 0.
    const first = results.find((x) => x.caseId === '001')!;
    const req = first.turns[0]!.request as {
      messages: { role: string; content: string }[];
      tools: unknown[];
      tool_choice: string;
      temperature: number;
    };
    expect(req.messages[0]!.role).toBe('system');
    expect(req.messages[1]).toEqual({ role: 'user', content: '查询商品SKU-101的详情' });
    expect(req.tools).toHaveLength(4);
    expect(req).toMatchObject({ tool_choice: 'auto', temperature: 0, model: 'qwen3-8b' });
    // Arguments are kept as the model sent them: the broken JSON string, unrepaired.
    const broken = results.find((x) => x.caseId === '005')!;
    expect(broken.outcome).toEqual({
      kind: 'tool_calls',
      calls: [{ id: expect.any(String), name: 'get_item', arguments: '{"item_id": "SKU-118"' }],
    });
  });

  it('sends the key from EVAL_API_KEY and never writes it anywhere', () => {
    expect(fake.received.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    for (const f of ['runs/qwen.jsonl', 'report.json', 'junit.xml', 'summary.md'])
      expect(readFileSync(path.join(tmp.dir, f), 'utf8')).not.toContain(KEY);
    expect(res.out + res.err).not.toContain(KEY);
  });

  it('honours Retry-After on 429, backs off on 500 and timeouts, and records what is still failing as provider errors', () => {
    // 006: Retry-After 2 s → one wait of exactly 2000 ms; 008 (500) and 012 (timeout): the first backoff step, 1 s.
    expect(sleep.waits).toEqual([2000, 1000, 1000]);
    const lines = readJsonl(path.join(tmp.dir, 'runs/qwen.jsonl')).slice(1) as ResultRecord[];
    const errs = lines
      .filter((x) => x.status === 'provider_error')
      .map((x) => [x.caseId, x.repeat, x.error?.code, x.attempts]);
    expect(errs).toEqual([
      ['008', 1, 'server', 2],
      ['012', 1, 'timeout', 2],
    ]);
    expect(lines.find((x) => x.caseId === '006' && x.repeat === 1)).toMatchObject({ status: 'ok', attempts: 2 });
  });

  it('reports every rate as worked out by hand', () => {
    expect(report.models).toHaveLength(1);
    const m = report.models[0]!;
    expect(m).toMatchObject({ key: 'openai/qwen3-8b', variant: 'core', repeats: 3 });
    const o = m.overall;
    // 36 planned observations (12 × 3); 008#1 and 012#1 got no answer.
    expect(o).toMatchObject({ cases: 12, planned: 36, observed: 34, coverage: r(34, 36) });
    // Passing observations: 001 ×3, 003 ×2, 006 ×3, 008 ×2, 009 ×3, 011 ×3, 012 ×2 = 18.
    expect(o.strictPassRate).toEqual(r(18, 36));
    expect(o.exactMatchRate).toEqual(r(18, 36));
    // Should call: 001–008 (24 observations), passing 3 + 2 + 3 + 2.
    expect(o.shouldCallPassRate).toEqual(r(10, 24));
    // Should not call: 009–012 (12), passing 3 + 0 (010 invents a tool) + 3 + 2 (012#1 timed out: not a correct non-call).
    expect(o.shouldNotCallPassRate).toEqual(r(8, 12));
    // Right tool or right abstention: all but 002 ×3, 007 ×3, 010 ×3 and the two provider errors.
    expect(o.selectionAccuracy).toEqual(r(25, 36));
    // Arguments, only where selection passed and arguments are expected: 001 3/3, 003 2/3, 004 0/3, 005 0/3, 006 3/3, 008 2/2.
    expect(o.argsAccuracy).toEqual(r(10, 17));
    expect(o.confusion).toEqual({
      get_item: { get_item: 6 },
      get_stock: { get_item: 3, get_stock: 3 },
      search_help: { search_help: 3, '(none)': 3 },
      add_to_wishlist: { add_to_wishlist: 5, '(missing)': 1 },
      '(none)': { '(none)': 8, calculator: 3, '(missing)': 1 },
    });
    // Per class F1 = 2tp/(2tp+fp+fn): get_item 12/15, get_stock 6/9, search_help 6/9, add_to_wishlist 10/11,
    // (none) 16/23, calculator 0/3 — macro average over the six classes ((missing) is not a class).
    const f1 = 12 / 15 + 6 / 9 + 6 / 9 + 10 / 11 + 16 / 23 + 0;
    expect(o.macroF1.denominator).toBe(6);
    expect(o.macroF1.value).toBeCloseTo(f1 / 6, 6);
    // Every call the model made, through production's checker: 23 calls.
    expect(o.validity).toEqual({
      calls: 23,
      valid: 14,
      InvalidJson: 3,
      UnknownName: 3,
      SchemaMismatch: 3,
      unvalidated: 0,
      validRate: r(14, 23),
    });
    expect(o.requestAcceptanceRate).toEqual(r(34, 34));
    expect(o.clarificationAccuracy).toEqual(r(0, 0));
    expect(o.needlessClarificationRate).toEqual(r(0, 23));
    expect(o.recoveryRate).toEqual(r(0, 0));
    expect(o.trajectoryPassRate).toEqual(r(0, 0));
    // Stability: 003 gave 2 of 3 the same; 008 and 012 have 2 successful repeats each.
    expect(o.stability).toEqual({ ...r(33, 34), stableCases: 11, casesObserved: 12 });
    // pass^k over n = 3: passes per case 3,0,2,0,0,3,0,2,3,0,3,2.
    expect(o.passHatK).toEqual([
      { k: 1, ...r(6, 12) },
      { k: 2, ...r(5, 12) },
      { k: 3, ...r(4, 12) },
    ]);
    expect(o.providerErrors).toEqual({ total: 2, missing: 0, byCode: { server: 1, timeout: 1 } });
    // The fake reports 100 prompt + 20 completion tokens per answer; 34 answers.
    expect(o.tokens).toEqual({ input: 3400, output: 680, total: 4080 });
    expect(o.tokensPerCase).toBeCloseTo(4080 / 36, 5);
    expect(o.tokensPerSuccess).toBeCloseTo(4080 / 18, 5);
    expect(o.latencyPerCaseMs).toBeGreaterThan(0);
    expect(o.latencyMs.p50).not.toBeNull();
    expect(m.byTag).toEqual({});
  });

  it('keeps per-case detail: passes, stability and why each repeat failed', () => {
    const cases = Object.fromEntries(report.models[0]!.cases.map((c) => [c.id, c]));
    expect(cases['003']).toMatchObject({ passes: 2, pass: false, stability: r(2, 3) });
    expect(cases['003']!.observations[2]!.problems).toEqual([
      'search_help.query: expected "7天无理由退货", got "退货"',
    ]);
    expect(cases['004']!.observations[0]!.problems).toEqual([
      'add_to_wishlist.quantity: unexpected argument',
      'add_to_wishlist: SchemaMismatch',
    ]);
    expect(cases['005']!.observations[0]!.problems).toEqual([
      'get_item: arguments are not a JSON object',
      'get_item: InvalidJson',
    ]);
    expect(cases['010']!.observations[0]).toMatchObject({
      decision: 'calculator',
      problems: ['called calculator; no call expected'],
    });
    expect(cases['012']!.observations[0]).toMatchObject({
      status: 'provider_error',
      errorCode: 'timeout',
      strictPass: false,
    });
  });

  it("applies the suite's gates and says which failed", () => {
    const g = Object.fromEntries(report.models[0]!.gates.map((x) => [x.gate, [x.status, x.numerator, x.denominator]]));
    expect(g).toEqual({
      selection_accuracy: ['failed', 25, 36],
      strict_pass_rate: ['failed', 18, 36],
      args_accuracy: ['failed', 10, 17],
    });
    expect(report.passed).toBe(false);
    expect(res.out).toContain('gates: FAILED');
  });

  it('writes JUnit (one testcase per case) and a Markdown summary', () => {
    const xml = readFileSync(path.join(tmp.dir, 'junit.xml'), 'utf8');
    expect(xml).toContain('<testsuite name="openai/qwen3-8b" tests="12" failures="6" errors="2" skipped="0"');
    expect(xml.match(/<testcase /g)).toHaveLength(12);
    expect(xml).toMatch(/name="008"[^>]*><error message="provider error: server" type="coverage">/);
    expect(xml).toMatch(/name="002"[^>]*><failure message="called get_item, expected get_stock" type="tool">/);
    const md = readFileSync(path.join(tmp.dir, 'summary.md'), 'utf8');
    expect(md).toContain(
      '| openai/qwen3-8b | 69.4% (25/36) | 50.0% (18/36) | 58.8% (10/17) | 50.0% (18/36) | 41.7% (10/24) | 66.7% (8/12) | 0.623 | 60.9% (14/23) | 94.4% (34/36) |',
    );
    expect(md).toContain('### Failing cases — openai/qwen3-8b (8)');
    expect(md).toContain('| 002 | get_stock | get_item | called get_item, expected get_stock |');
  });

  it('scores the same predictions again with eval score to the same report', async () => {
    const again = await evalCli(
      ['score', '--suite', path.join(tmp.dir, 'shop'), '--pred', 'runs/qwen.jsonl', '--report', 'again.json'],
      { cwd: tmp.dir },
    );
    expect(again.code, again.err).toBe(0);
    const b = JSON.parse(readFileSync(path.join(tmp.dir, 'again.json'), 'utf8')) as Report;
    expect(b.models[0]!.overall).toEqual(report.models[0]!.overall);
    expect(b.models[0]!.cases).toEqual(report.models[0]!.cases);
  });
});
