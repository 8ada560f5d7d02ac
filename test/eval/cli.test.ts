/**
 * The CLI contract: selftest, exit codes, bad input (exit 2, nothing written), keys, progress,
 * score options, and compare (gates, drops against a baseline, fixed/broke cases).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import type { Report } from '../../src/eval/report.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { call, text, type FakeServer, type Reply } from '../fakes/scripted.js';
import { evalCli, tempDir, writeSuite } from './helpers.js';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_stock',
      parameters: {
        type: 'object',
        properties: { sku: { type: 'string' } },
        required: ['sku'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_item',
      parameters: {
        type: 'object',
        properties: { item_id: { type: 'string' } },
        required: ['item_id'],
        additionalProperties: false,
      },
    },
  },
];
const CASES = [
  { id: 'c1', user: 'stock A?', expected: [{ name: 'get_stock', arguments: { sku: 'A' } }] },
  { id: 'c2', user: 'stock B?', expected: [{ name: 'get_stock', arguments: { sku: 'B' } }] },
  { id: 'c3', user: 'item C?', expected: [{ name: 'get_item', arguments: { item_id: 'C' } }] },
  { id: 'c4', user: 'hello', expected: [] },
];
const GATES = { selection_accuracy: 0.5, strict_pass_rate: 0.5, args_accuracy: 0.5, max_drop_pp: 2 };

describe('toolwatch eval CLI', () => {
  let fake: FakeServer;
  let tmp: ReturnType<typeof tempDir>;
  let suite: string;
  let answers: Record<string, Reply>;

  beforeAll(async () => {
    answers = {};
    fake = await startChatCompletions((q) => answers[q.key] ?? { status: 400, message: 'unscripted' });
    tmp = tempDir();
    suite = writeSuite(path.join(tmp.dir, 'mini'), {
      suite: { dataset_version: '2', gates: GATES },
      tools: TOOLS,
      cases: CASES,
    });
  });
  afterAll(async () => {
    await fake.close();
    tmp.remove();
  });

  const run = (out: string, extra: string[] = [], env: Record<string, string> = {}) =>
    evalCli(['run', '--suite', suite, '--model', 'm1', '--base-url', fake.baseUrl, '--out', out, ...extra], {
      cwd: tmp.dir,
      env,
    });

  it('selftest passes, also through the toolwatch entry point', async () => {
    const a = await evalCli(['selftest']);
    expect(a.code).toBe(0);
    expect(a.out).toMatch(/selftest: \d+ passed, 0 failed/);
    let out = '';
    const code = await runCli(['eval', 'selftest'], {}, { out: (s) => (out += s), err: () => {} });
    expect(code).toBe(0);
    expect(out).toContain('0 failed');
  });

  it('prints usage and exits 2 on a usage error', async () => {
    for (const argv of [
      ['run', '--suite', suite],
      ['score', '--pred', 'x.jsonl'],
      ['compare'],
      ['run', '--bogus'],
      ['frobnicate'],
      [],
    ]) {
      const r = await evalCli(argv, { cwd: tmp.dir });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toContain('usage: toolwatch eval');
    }
  });

  it('bad suites exit 2 with file:line, and nothing is run or written', async () => {
    const bad: [string, string, string][] = [
      ['malformed line', '{"id":"a","user":"x","expected":[]}\n{"id":"b","user":', 'cases.jsonl:2: not valid JSON'],
      [
        'unknown kind',
        '{"id":"a","prompt":"x","expected":{"kind":"sometimes"}}\n',
        'cases.jsonl:1: case "a": expected.kind: unknown kind "sometimes"',
      ],
      [
        'tool not in tools.json',
        '{"id":"a","user":"x","expected":[{"name":"refund","arguments":{}}]}\n',
        'expected tool "refund" is not in tools.json',
      ],
      [
        'duplicate id',
        '{"id":"a","user":"x","expected":[]}\n{"id":"a","user":"y","expected":[]}\n',
        'cases.jsonl:2: duplicate case id "a" (first on line 1)',
      ],
    ];
    for (const [name, cases, message] of bad) {
      const dir = writeSuite(path.join(tmp.dir, `bad-${name.replace(/\W/g, '')}`), {
        suite: { dataset_version: '1' },
        tools: TOOLS,
        cases,
      });
      const before = fake.received.length;
      const r = await evalCli(
        [
          'run',
          '--suite',
          dir,
          '--model',
          'm',
          '--base-url',
          fake.baseUrl,
          '--out',
          `${name}.jsonl`,
          '--report',
          `${name}.json`,
        ],
        { cwd: tmp.dir },
      );
      expect(r.code, name).toBe(2);
      expect(r.err).toContain(message);
      expect(existsSync(path.join(tmp.dir, `${name}.jsonl`))).toBe(false);
      expect(existsSync(path.join(tmp.dir, `${name}.json`))).toBe(false);
      expect(fake.received.length).toBe(before);
    }
  });

  it('refuses keys in suite.yaml, bad settings, and a named key variable that is not set', async () => {
    const withKey = writeSuite(path.join(tmp.dir, 'keyfile'), {
      suite: { dataset_version: '1', models: [{ model: 'x', api_key: 'sk-live-abc' }] },
      tools: TOOLS,
      cases: CASES,
    });
    let r = await evalCli(['run', '--suite', withKey, '--out', 'k.jsonl'], { cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.err).toContain('keys are never read from files');
    expect(r.err).not.toContain('sk-live-abc');
    const badYaml = writeSuite(path.join(tmp.dir, 'badyaml'), {
      suite: { dataset_version: '1', repeats: 0, timeout: 'soon', colour: 'red' },
      tools: TOOLS,
      cases: CASES,
    });
    r = await evalCli(['score', '--suite', badYaml, '--pred', 'none.jsonl'], { cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.err).toContain('colour: unknown key');
    expect(r.err).toContain('repeats: must be >= 1');
    expect(r.err).toContain('timeout: must be a duration such as 30s, 5m');
    r = await run('nokey.jsonl', ['--api-key-env', 'MY_PROVIDER_KEY']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('environment variable MY_PROVIDER_KEY is not set');
    expect(existsSync(path.join(tmp.dir, 'nokey.jsonl'))).toBe(false);
  });

  it('a wrong key is an auth error on every case; the key the provider echoes is never written', async () => {
    const keyed = await startChatCompletions(() => text('never'), { apiKey: 'the-right-key' });
    try {
      const key = 'custom-format-key-123';
      const r = await evalCli(
        [
          'run',
          '--suite',
          suite,
          '--model',
          'm',
          '--base-url',
          keyed.baseUrl,
          '--out',
          'auth.jsonl',
          '--report',
          'auth.json',
        ],
        { cwd: tmp.dir, env: { EVAL_API_KEY: key } },
      );
      expect(r.code).toBe(0);
      expect(keyed.received).toHaveLength(4); // 401 is not retried
      const raw = readFileSync(path.join(tmp.dir, 'auth.jsonl'), 'utf8');
      expect(raw).toContain('Incorrect API key provided: [REDACTED]');
      expect(raw + readFileSync(path.join(tmp.dir, 'auth.json'), 'utf8') + r.out + r.err).not.toContain(key);
      const o = (JSON.parse(readFileSync(path.join(tmp.dir, 'auth.json'), 'utf8')) as Report).models[0]!.overall;
      expect(o.providerErrors).toEqual({ total: 4, missing: 0, byCode: { auth: 4 } });
      // Coverage loss, never a correct non-call: the "hello" case does not pass.
      expect(o.shouldNotCallPassRate).toMatchObject({ numerator: 0, denominator: 1 });
    } finally {
      await keyed.close();
    }
  });

  it('prints a plain progress line per result when stderr is not a terminal, a bar when it is', async () => {
    Object.assign(answers, {
      'stock A?': call('get_stock', { sku: 'A' }),
      'stock B?': call('get_stock', { sku: 'B' }),
      'item C?': call('get_item', { item_id: 'C' }),
      hello: text('hi'),
    });
    const r = await run('progress.jsonl');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('[1/4] openai/m1 c1 #1 tool_calls get_stock');
    expect(r.err).toContain('[4/4] openai/m1 c4 #1 text');
    let err = '';
    await runCli(
      [
        'eval',
        'run',
        '--suite',
        suite,
        '--model',
        'm1',
        '--base-url',
        fake.baseUrl,
        '--out',
        path.join(tmp.dir, 'tty.jsonl'),
      ],
      {},
      { out: () => {}, err: (s) => (err += s), isTTY: true },
    );
    expect(err).toContain('\r');
    expect(err).toContain('4/4');
  });

  it('score: several runs in one file → the latest per model; --run-id picks one; --check-gates; dataset mismatch is refused', async () => {
    Object.assign(answers, {
      'stock A?': call('get_stock', { sku: 'A' }),
      'stock B?': call('get_stock', { sku: 'B' }),
      'item C?': call('get_item', { item_id: 'C' }),
      hello: text('hi'),
    });
    expect((await run('multi.jsonl', ['--run-id', 'good'])).code).toBe(0);
    Object.assign(answers, {
      'stock A?': call('get_item', { item_id: 'A' }),
      'stock B?': call('get_item', { item_id: 'B' }),
      'item C?': text('?'),
    });
    expect((await run('multi.jsonl', ['--run-id', 'bad'])).code).toBe(0);
    const latest = await evalCli(
      ['score', '--suite', suite, '--pred', 'multi.jsonl', '--report', 'latest.json', '--check-gates'],
      { cwd: tmp.dir },
    );
    expect(latest.code).toBe(1);
    const rep = JSON.parse(readFileSync(path.join(tmp.dir, 'latest.json'), 'utf8')) as Report;
    expect(rep.models[0]!.runId).toBe('bad');
    expect(rep.models[0]!.overall.strictPassRate).toMatchObject({ numerator: 1, denominator: 4 });
    const good = await evalCli(
      ['score', '--suite', suite, '--pred', 'multi.jsonl', '--run-id', 'good', '--check-gates'],
      { cwd: tmp.dir },
    );
    expect(good.code).toBe(0);
    expect(good.out).toContain('strict pass 100.0% (4/4)');
    const other = writeSuite(path.join(tmp.dir, 'v3'), { suite: { dataset_version: '3' }, tools: TOOLS, cases: CASES });
    const mismatch = await evalCli(['score', '--suite', other, '--pred', 'multi.jsonl', '--report', 'mm.json'], {
      cwd: tmp.dir,
    });
    expect(mismatch.code).toBe(2);
    expect(mismatch.err).toContain('dataset_version 2, the suite is 3');
    expect(existsSync(path.join(tmp.dir, 'mm.json'))).toBe(false);
    writeFileSync(path.join(tmp.dir, 'junk.jsonl'), '{"type":"result"}\nnot json\n{"type":"run","runId":"x"}\n');
    const junk = await evalCli(['score', '--suite', suite, '--pred', 'junk.jsonl', '--report', 'junk.json'], {
      cwd: tmp.dir,
    });
    expect(junk.code).toBe(2);
    expect(junk.err).toContain('junk.jsonl:1: not a toolwatch eval record');
    expect(junk.err).toContain('junk.jsonl:2: not valid JSON');
  });

  it('runs a matrix: --models a,b, or every models: entry of suite.yaml (per-model keys)', async () => {
    Object.assign(answers, {
      'stock A?': call('get_stock', { sku: 'A' }),
      'stock B?': call('get_stock', { sku: 'B' }),
      'item C?': call('get_item', { item_id: 'C' }),
      hello: text('hi'),
    });
    const r = await evalCli(
      [
        'run',
        '--suite',
        suite,
        '--models',
        'a,b',
        '--base-url',
        fake.baseUrl,
        '--out',
        'matrix.jsonl',
        '--report',
        'matrix.json',
      ],
      { cwd: tmp.dir },
    );
    expect(r.code, r.err).toBe(0);
    const rep = JSON.parse(readFileSync(path.join(tmp.dir, 'matrix.json'), 'utf8')) as Report;
    expect(rep.models.map((m) => [m.key, m.overall.planned, m.overall.strictPassRate.numerator])).toEqual([
      ['openai/a', 4, 4],
      ['openai/b', 4, 4],
    ]);
    const listed = writeSuite(path.join(tmp.dir, 'listed'), {
      suite: {
        dataset_version: '2',
        models: [
          { model: 'x', base_url: fake.baseUrl, label: 'local-x' },
          { model: 'y', base_url: fake.baseUrl, api_key_env: 'Y_KEY' },
        ],
      },
      tools: TOOLS,
      cases: CASES,
    });
    const before = fake.received.length;
    const l = await evalCli(['run', '--suite', listed, '--out', 'listed.jsonl', '--report', 'listed.json'], {
      cwd: tmp.dir,
      env: { EVAL_API_KEY: 'sk-eval-key-aaaaaaaaaaaaaaaa', Y_KEY: 'sk-y-key-bbbbbbbbbbbbbbbbbbbb' },
    });
    expect(l.code, l.err).toBe(0);
    const auth = fake.received.slice(before).map((q) => [(q.body as { model: string }).model, q.headers.authorization]);
    expect(new Set(auth.map((a) => a.join(' ')))).toEqual(
      new Set(['x Bearer sk-eval-key-aaaaaaaaaaaaaaaa', 'y Bearer sk-y-key-bbbbbbbbbbbbbbbbbbbb']),
    );
    expect(
      (JSON.parse(readFileSync(path.join(tmp.dir, 'listed.json'), 'utf8')) as Report).models.map((m) => m.key),
    ).toEqual(['local-x', 'openai/y']);
  });

  it('a missing prediction is a failure: records for half the cases', async () => {
    const half = path.join(tmp.dir, 'half.jsonl');
    const lines = readFileSync(path.join(tmp.dir, 'progress.jsonl'), 'utf8').trim().split('\n');
    writeFileSync(half, `${lines.slice(0, 3).join('\n')}\n`); // run header + c1 + c2
    const r = await evalCli(['score', '--suite', suite, '--pred', half, '--report', 'half.json'], { cwd: tmp.dir });
    expect(r.code).toBe(0);
    const o = (JSON.parse(readFileSync(path.join(tmp.dir, 'half.json'), 'utf8')) as Report).models[0]!.overall;
    expect(o).toMatchObject({
      planned: 4,
      observed: 2,
      strictPassRate: { numerator: 2, denominator: 4 },
      providerErrors: { total: 0, missing: 2 },
    });
    expect(o.confusion).toEqual({
      get_stock: { get_stock: 2 },
      get_item: { '(missing)': 1 },
      '(none)': { '(missing)': 1 },
    });
  });

  describe('compare', () => {
    const scoreTo = async (file: string, replies: Record<string, Reply>) => {
      Object.assign(answers, replies);
      const r = await run(`${file}.jsonl`, ['--report', `${file}.json`]);
      expect(r.code, r.err).toBe(0);
      return path.join(tmp.dir, `${file}.json`);
    };
    const right = {
      'stock A?': call('get_stock', { sku: 'A' }),
      'stock B?': call('get_stock', { sku: 'B' }),
      'item C?': call('get_item', { item_id: 'C' }),
      hello: text('hi'),
    };

    it('passes when nothing dropped; lists fixed and broke cases; fails on a drop over 2 pp', async () => {
      const base = await scoreTo('base', { ...right, 'item C?': call('get_stock', { sku: 'C' }) }); // 3/4
      const same = await scoreTo('same', { ...right, 'item C?': call('get_stock', { sku: 'C' }) });
      let r = await evalCli(['compare', '--baseline', base, '--report', same], { cwd: tmp.dir });
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain('compare: passed');
      // c3 fixed, c1 broke: the same counts, nothing dropped.
      const swapped = await scoreTo('swapped', { ...right, 'stock A?': call('get_item', { item_id: 'A' }) });
      r = await evalCli(['compare', '--baseline', base, '--report', swapped, '--markdown', 'cmp.md'], { cwd: tmp.dir });
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain('fixed: c3');
      expect(r.out).toContain('broke: c1');
      const md = readFileSync(path.join(tmp.dir, 'cmp.md'), 'utf8');
      expect(md).toContain('- broke: c1');
      expect(md).toContain('| selectionAccuracy | 75.0% | 75.0% | +0 pp |');
      // Two broke: 75% → 50% on every gated rate — still at the 0.5 gates, but 25 pp down.
      const worse = await scoreTo('worse', {
        ...right,
        'stock A?': call('get_item', { item_id: 'A' }),
        'item C?': call('get_stock', { sku: 'C' }),
      });
      r = await evalCli(['compare', '--baseline', base, '--report', worse], { cwd: tmp.dir });
      expect(r.code).toBe(1);
      expect(r.out).toContain('selectionAccuracy: 75.0% → 50.0% (-25 pp) dropped more than 2 pp');
      expect(r.out).toContain('compare: FAILED');
    });

    it('fails on a crossed gate even without a baseline; refuses what is not a report', async () => {
      const bad = await scoreTo('allbad', {
        'stock A?': text('no'),
        'stock B?': text('no'),
        'item C?': text('no'),
        hello: call('get_item', { item_id: 'x' }),
      });
      const r = await evalCli(['compare', '--report', bad], { cwd: tmp.dir });
      expect(r.code).toBe(1);
      expect(r.out).toContain('gate selection_accuracy ≥ 0.5: 0.0% (0/4) failed');
      writeFileSync(path.join(tmp.dir, 'not-report.json'), '{"hello": 1}');
      const n = await evalCli(['compare', '--report', 'not-report.json'], { cwd: tmp.dir });
      expect(n.code).toBe(2);
      expect(n.err).toContain('not a toolwatch eval report');
    });
  });
});
