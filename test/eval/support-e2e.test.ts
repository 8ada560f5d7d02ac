/**
 * The shipped support suite (three support tools, their system prompt, eight diagnostic cases,
 * five repeats, core and compatibility variants) end to end against a local server speaking the
 * Anthropic Messages protocol, scripted per case. Every rate is asserted against numbers worked
 * out by hand below. suite.yaml is used as shipped.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../../src/eval/records.js';
import type { Report } from '../../src/eval/report.js';
import { startAnthropicMessages } from '../fakes/anthropic-messages.js';
import { call, perCase, text, type FakeServer, type Reply } from '../fakes/scripted.js';
import { copySuite, evalCli, r, readJsonl, recordedSleep, tempDir, type CliRun } from './helpers.js';

const KEY = 'sk-ant-test-0123456789abcdefghij';
/** The repeat a request belongs to (both variants ask the same prompts: requests 1–5 core, 6–10 compatibility). */
const rep = (nth: number) => ((nth - 1) % 5) + 1;

const script = perCase({
  // Right every time.
  'Where is order ORD-104821?': call('lookup_order', { order_id: 'ORD-104821' }),
  // Right on repeats 1–4; repeat 5 adds an optional limit the expectation does not allow.
  'Show my shipped orders. My email is sam@example.test.': (q) =>
    rep(q.nth) === 5
      ? call('search_orders', { email: 'sam@example.test', status: 'shipped', limit: 5 })
      : call('search_orders', { email: 'sam@example.test', status: 'shipped' }),
  // Overloaded (529) once, then a plain answer: retried, not a failure.
  'Hello! What can you help me with?': (q) =>
    q.nth === 1 ? ({ status: 529, message: 'Overloaded' } as Reply) : text('I can look up orders and quote shipping.'),
  // Asks for the postal code on repeats 1–3; guesses one on 4–5.
  'How much is express shipping to Germany for 750 grams?': (q) =>
    rep(q.nth) <= 3
      ? text('Which postal code in Germany should I quote for?')
      : call('get_shipping_quote', { country_code: 'DE', postal_code: '10115', weight_grams: 750, service: 'express' }),
  // Loses the leading zero: structurally valid, wrong value.
  'Quote standard shipping for 750 grams to US postal code 02139.': call('get_shipping_quote', {
    country_code: 'US',
    postal_code: '2139',
    weight_grams: 750,
    service: 'standard',
  }),
  // Lower-case country code: valid for the core schema, SchemaMismatch under the compatibility definitions' pattern.
  'Shipping quote for 1 kg to ca, M5V 3L9.': call('get_shipping_quote', {
    country_code: 'ca',
    postal_code: 'M5V 3L9',
    weight_grams: 1000,
  }),
  // Refuses (stop_reason refusal).
  'Cancel every order on my account.': { refusal: 'I cannot cancel orders.' },
  // The confusable pair: search instead of lookup although the id is given.
  'Find ORD-104821. My email is sam@example.test.': call('search_orders', { email: 'sam@example.test' }),
});

describe('eval run: the support suite against a Messages server', () => {
  let fake: FakeServer;
  let tmp: ReturnType<typeof tempDir>;
  let res: CliRun;
  let report: Report;
  const sleep = recordedSleep();

  beforeAll(async () => {
    fake = await startAnthropicMessages(script, { apiKey: KEY });
    tmp = tempDir();
    const suite = copySuite('support', tmp.dir);
    res = await evalCli(
      [
        'run',
        '--suite',
        suite,
        '--provider',
        'anthropic',
        '--model',
        'claude-test',
        '--base-url',
        fake.baseUrl,
        '--api-key-env',
        'ANTHROPIC_KEY',
        '--out',
        'support.jsonl',
        '--report',
        'report.json',
      ],
      { env: { ANTHROPIC_KEY: KEY }, deps: { sleep: sleep.sleep }, cwd: tmp.dir },
    );
    report = JSON.parse(readFileSync(path.join(tmp.dir, 'report.json'), 'utf8')) as Report;
  }, 120_000);
  afterAll(async () => {
    await fake.close();
    tmp.remove();
  });

  it('runs 8 cases × 5 repeats × 2 variants through the Messages protocol', () => {
    expect(res.code, res.err).toBe(0);
    const results = readJsonl(path.join(tmp.dir, 'support.jsonl')).slice(1) as ResultRecord[];
    expect(results).toHaveLength(80);
    expect(fake.received).toHaveLength(81); // + the one 529
    expect(sleep.waits).toEqual([1000]);
    const q = fake.received[0]!;
    expect(q.headers['anthropic-version']).toBeTruthy();
    const body = q.body as {
      system: string;
      tools: { name: string; input_schema: { properties: Record<string, { pattern?: string }> } }[];
      tool_choice: unknown;
      max_tokens: number;
      temperature: number;
    };
    expect(body.system).toBe(readFileSync(path.join(tmp.dir, 'support/system.txt'), 'utf8').trim());
    expect(body).toMatchObject({ tool_choice: { type: 'auto' }, max_tokens: 1024, temperature: 0 });
    expect(body.tools.map((t) => t.name)).toEqual(['lookup_order', 'search_orders', 'get_shipping_quote']);
    // Core variant: no pattern; compatibility variant: the definitions with it.
    expect(body.tools[0]!.input_schema.properties.order_id!.pattern).toBeUndefined();
    const compat = fake.received.find((x, i) => i > 41 && x.key === 'Where is order ORD-104821?')!;
    expect((compat.body as typeof body).tools[0]!.input_schema.properties.order_id!.pattern).toBe('^ORD-[0-9]{6}$');
    // A tool_use input is an object on the wire and stays one in the record.
    const types = results.find((x) => x.caseId === 'types-01')!;
    expect(types.outcome).toEqual({
      kind: 'tool_calls',
      calls: [
        {
          id: expect.stringMatching(/^toolu_/),
          name: 'get_shipping_quote',
          arguments: { country_code: 'US', postal_code: '2139', weight_grams: 750, service: 'standard' },
        },
      ],
    });
    expect(results.find((x) => x.caseId === 'unsupported-01')!.outcome).toEqual({
      kind: 'refusal',
      text: 'I cannot cancel orders.',
    });
  });

  it('redacts the raw request and response with the judge redactor; the key is never written', () => {
    const raw = readFileSync(path.join(tmp.dir, 'support.jsonl'), 'utf8');
    expect(raw).not.toContain(KEY);
    const rec = (readJsonl(path.join(tmp.dir, 'support.jsonl')).slice(1) as ResultRecord[]).find(
      (x) => x.caseId === 'select-search-01',
    )!;
    // The e-mail in the prompt is masked in the raw request/response; the scored outcome keeps the model's value.
    expect(JSON.stringify(rec.turns[0]!.request)).toContain('[EMAIL]');
    expect(JSON.stringify(rec.turns[0]!.request)).not.toContain('sam@example.test');
    expect(JSON.stringify(rec.turns[0]!.response)).not.toContain('sam@example.test');
    expect(rec.outcome).toMatchObject({ kind: 'tool_calls', calls: [{ arguments: { email: 'sam@example.test' } }] });
  });

  it('reports every rate of the core variant as worked out by hand', () => {
    const m = report.models.find((x) => x.variant === 'core')!;
    expect(m).toMatchObject({ key: 'anthropic/claude-test', provider: 'anthropic', repeats: 5 });
    const o = m.overall;
    expect(o).toMatchObject({ cases: 8, planned: 40, observed: 40, coverage: r(40, 40) });
    // Passing: lookup 5, search 4, abstain 5, clarify 3, types 0, normalize 0, unsupported 5, conflict 0.
    expect(o.strictPassRate).toEqual(r(22, 40));
    expect(o.exactMatchRate).toEqual(r(22, 40));
    expect(o.shouldCallPassRate).toEqual(r(9, 25));
    expect(o.shouldNotCallPassRate).toEqual(r(13, 15));
    // Selection fails only for clarify #4–5 (guessed) and conflict ×5 (wrong tool).
    expect(o.selectionAccuracy).toEqual(r(33, 40));
    // Arguments where the tool was right: lookup 5/5, search 4/5, types 0/5, normalize 0/5.
    expect(o.argsAccuracy).toEqual(r(9, 20));
    expect(o.confusion).toEqual({
      lookup_order: { lookup_order: 5, search_orders: 5 },
      search_orders: { search_orders: 5 },
      '(none)': { '(none)': 13, get_shipping_quote: 2 },
      get_shipping_quote: { get_shipping_quote: 10 },
    });
    // F1: lookup 10/15, search 10/15, quote 20/22, (none) 26/28.
    expect(o.macroF1.denominator).toBe(4);
    expect(o.macroF1.value).toBeCloseTo((10 / 15 + 10 / 15 + 20 / 22 + 26 / 28) / 4, 6);
    expect(o.validity).toEqual({
      calls: 27,
      valid: 27,
      InvalidJson: 0,
      UnknownName: 0,
      SchemaMismatch: 0,
      unvalidated: 0,
      validRate: r(27, 27),
    });
    expect(o.requestAcceptanceRate).toEqual(r(40, 40));
    expect(o.clarificationAccuracy).toEqual(r(3, 5));
    expect(o.needlessClarificationRate).toEqual(r(0, 25));
    expect(o.recoveryRate).toEqual(r(0, 0));
    // Stability: search 4/5, clarify 3/5, the rest 5/5.
    expect(o.stability).toEqual({ ...r(37, 40), stableCases: 6, casesObserved: 8 });
    // pass^k, n = 5, passes per case 5,4,5,3,0,0,5,0: Σ C(c,k)/C(5,k) over 8 cases.
    expect(o.passHatK.map((x) => [x.k, x.value])).toEqual([
      [1, 0.55], // (5+4+5+3+5)/5 = 4.4
      [2, 0.4875], // 3 + 6/10 + 3/10 = 3.9
      [3, 0.4375], // 3 + 4/10 + 1/10 = 3.5
      [4, 0.4], // 3 + 1/5 = 3.2
      [5, 0.375], // 3
    ]);
    expect(o.providerErrors).toEqual({ total: 0, missing: 0, byCode: {} });
    // 200 input + 30 output tokens per answer.
    expect(o.tokens).toEqual({ input: 8000, output: 1200, total: 9200 });
    expect(o.tokensPerSuccess).toBeCloseTo(9200 / 22, 5);
  });

  it('reports per tag', () => {
    const t = report.models.find((x) => x.variant === 'core')!.byTag;
    expect(Object.keys(t)).toEqual([
      'abstention',
      'enum',
      'exact-id',
      'leading-zero',
      'missing-required',
      'normalization',
      'overlap',
      'safety',
      'selection',
      'types',
      'unit-conversion',
      'unsupported',
    ]);
    // selection: lookup, search, conflict.
    expect(t.selection).toMatchObject({
      cases: 3,
      strictPassRate: r(9, 15),
      selectionAccuracy: r(10, 15),
      argsAccuracy: r(9, 10),
    });
    expect(t['missing-required']).toMatchObject({ clarificationAccuracy: r(3, 5), strictPassRate: r(3, 5) });
    expect(t.overlap).toMatchObject({ selectionAccuracy: r(0, 5), confusion: { lookup_order: { search_orders: 5 } } });
    expect(t['leading-zero']).toMatchObject({
      selectionAccuracy: r(5, 5),
      argsAccuracy: r(0, 5),
      validity: { valid: 5 },
    });
  });

  it('runs the compatibility variant apart: the compatibility pattern turns normalize-01 into SchemaMismatch; not gated', () => {
    const m = report.models.find((x) => x.variant === 'compatibility')!;
    expect(m.key).toBe('anthropic/claude-test [compatibility]');
    expect(m.overall.validity).toEqual({
      calls: 27,
      valid: 22,
      InvalidJson: 0,
      UnknownName: 0,
      SchemaMismatch: 5,
      unvalidated: 0,
      validRate: r(22, 27),
    });
    expect(m.overall.strictPassRate).toEqual(r(22, 40));
    expect(m.overall.selectionAccuracy).toEqual(r(33, 40));
    expect(m.gates).toEqual([]);
    expect(m.passed).toBe(true);
    const core = report.models.find((x) => x.variant === 'core')!;
    expect(core.gates.map((g) => [g.gate, g.status])).toEqual([
      ['selection_accuracy', 'failed'],
      ['strict_pass_rate', 'failed'],
      ['args_accuracy', 'failed'],
    ]);
  });
});
