/**
 * `toolwatch eval generate` against a scripted generator that also returns bad drafts — each
 * refused with its reason — over both eval adapters (chat completions and Messages), and end to end:
 * the reviewed drafts appended to the shop suite, which then runs and scores them.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import { startAnthropicMessages } from '../fakes/anthropic-messages.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import type { FakeServer, Reply, ScriptRequest } from '../fakes/scripted.js';
import { copySuite, evalCli, tempDir } from './helpers.js';

const submit = (cases: unknown): Reply => ({ calls: [{ name: 'submit_cases', arguments: { cases } }] });

/** Drafts per tool/category; the reason each bad one must be refused with is in its `why`. */
const DRAFTS: Record<string, unknown[] | Reply> = {
  'get_stock/clear_selection': [
    { prompt: 'Is SKU-777 in stock?', expect: 'tool', calls: [{ name: 'get_stock', arguments: { sku: 'SKU-777' } }] },
    {
      prompt: 'Is SKU-777 in stock?',
      expect: 'tool',
      calls: [{ name: 'get_stock', arguments: { sku: 'SKU-777' } }],
      why: 'duplicate',
    },
    {
      prompt: 'is sku 777 in stock',
      expect: 'tool',
      calls: [{ name: 'get_stock', arguments: { sku: 'SKU-777' } }],
      why: 'near-duplicate',
    },
    {
      prompt: 'Stock of item 204?',
      expect: 'tool',
      calls: [{ name: 'get_stock', arguments: { sku: 204 } }],
      why: 'break its schema',
    },
    {
      prompt: 'Remove SKU-1 from stock',
      expect: 'tool',
      calls: [{ name: 'delete_item', arguments: { sku: 'SKU-1' } }],
      why: 'does not have',
    },
    {
      prompt: 'How many units of SKU-808 are left?',
      expect: 'tool',
      calls: [{ name: 'get_stock', arguments: { sku: 'SKU-808' } }],
    },
    {
      prompt: 'Stock for SKU-909?',
      expect: 'tool',
      calls: [{ name: 'get_stock', arguments: { sku: 'SKU-909' } }],
      why: 'over the limit',
    },
    {
      prompt: 'SKU-204现在还有库存吗?',
      expect: 'tool',
      calls: [{ name: 'get_stock', arguments: { sku: 'SKU-204' } }],
      why: 'duplicate',
    },
    { prompt: '', expect: 'tool', calls: [], why: 'not a draft' },
  ],
  'get_stock/abstention': [
    { prompt: 'What is the capital of France?', expect: 'text' },
    {
      prompt: 'Tell me a joke about warehouses',
      expect: 'tool',
      calls: [{ name: 'get_stock', arguments: { sku: 'SKU-1' } }],
      why: 'expects text',
    },
  ],
  'get_stock/missing_info': [
    { prompt: 'Is it still in stock?', expect: 'clarification', missing: ['sku'] },
    { prompt: 'Do you have the red one?', expect: 'clarification', missing: ['color'], why: 'not an argument' },
  ],
  'get_stock/multi_call': [
    {
      prompt: 'Check stock for SKU-111 and SKU-222 please',
      expect: 'tool',
      calls: [
        { name: 'get_stock', arguments: { sku: 'SKU-111' } },
        { name: 'get_stock', arguments: { sku: 'SKU-222' } },
      ],
    },
    {
      prompt: 'Check SKU-333 and SKU-444',
      expect: 'tool',
      calls: [{ name: 'get_stock', arguments: { sku: 'SKU-333' } }],
      why: 'two or more',
    },
  ],
  'get_item/clear_selection': { text: 'Here are some ideas for cases…' },
};

function generator(seen: ScriptRequest[]) {
  return (q: ScriptRequest): Reply => {
    seen.push(q);
    const m = /for the tool (\S+), category ([a-z_]+):/.exec(q.key);
    if (!m) return { status: 400, message: 'not a generation request' };
    const entry = DRAFTS[`${m[1]}/${m[2]}`] ?? [];
    return Array.isArray(entry) ? submit(entry) : (entry as Reply);
  };
}

const CATS = 'clear_selection,abstention,missing_info,multi_call';

for (const [name, start] of [
  ['chat completions', startChatCompletions],
  ['Messages', startAnthropicMessages],
] as const) {
  describe(`toolwatch eval generate over ${name}`, () => {
    const tmp = tempDir('toolwatch-gen-');
    let fake: FakeServer;
    const seen: ScriptRequest[] = [];
    let suite: string;
    const provider = name === 'Messages' ? 'anthropic' : 'openai';
    const base = () => (provider === 'anthropic' ? fake.baseUrl.replace(/\/v1$/, '') : fake.baseUrl);

    beforeAll(async () => {
      fake = await start(generator(seen));
      suite = copySuite('shop', tmp.dir);
    });
    afterAll(async () => {
      await fake.close();
      tmp.remove();
    });

    const drafts = () => path.join(tmp.dir, 'drafts.jsonl');
    const gen = (extra: string[] = []) =>
      evalCli([
        'generate',
        '--suite',
        suite,
        '--model',
        'drafter',
        '--provider',
        provider,
        '--base-url',
        base(),
        '--per-tool',
        '2',
        '--categories',
        CATS,
        '--out',
        drafts(),
        '--refused',
        path.join(tmp.dir, 'refused.jsonl'),
        ...extra,
      ]);

    it('writes the valid drafts for review and refuses every bad one with its reason', async () => {
      const res = await gen();
      expect(res.code).toBe(0);
      // One request per tool and category, answered through the submit_cases tool.
      expect(seen).toHaveLength(4 * 4);
      const lines = readFileSync(drafts(), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.prompt)).toEqual([
        'Is SKU-777 in stock?',
        'How many units of SKU-808 are left?',
        'What is the capital of France?',
        'Is it still in stock?',
        'Check stock for SKU-111 and SKU-222 please',
      ]);
      for (const l of lines) {
        expect(l.review).toBe(true);
        expect(l.tags).toContain('generated');
        expect(l.id).toMatch(/^gen-[0-9a-f]{12}$/);
        expect(l.metadata.generator).toMatchObject({
          model: `${provider}/drafter`,
          promptVersion: 'generate-v1',
          datasetVersion: '1.0.0',
          tool: 'get_stock',
        });
      }
      expect(lines[3].expected).toEqual({ kind: 'clarification', missing: ['sku'] });
      expect(lines[4].expected.calls).toHaveLength(2);
      const refused = readFileSync(path.join(tmp.dir, 'refused.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      // Every bad draft refused, and refused for the reason it was planted for.
      const planted = Object.values(DRAFTS)
        .flatMap((d) => (Array.isArray(d) ? d : []))
        .filter((d) => (d as { why?: string }).why);
      expect(refused.filter((r) => r.draft)).toHaveLength(planted.length);
      for (const r of refused.filter((x) => x.draft)) expect(r.reason).toContain((r.draft as { why: string }).why);
      expect(refused.find((r) => r.tool === 'get_item' && r.category === 'clear_selection').reason).toContain(
        'answered text instead of calling submit_cases',
      );
      expect(res.err).toContain('refused get_stock/clear_selection: expected arguments of get_stock break its schema');
    });

    it('refuses an existing --out without --append; with --append adds nothing twice', async () => {
      expect((await gen()).code).toBe(2);
      const again = await gen(['--append']);
      expect(again.code).toBe(0);
      expect(again.out).toContain('generate: 0 draft case(s) written');
      expect(readFileSync(drafts(), 'utf8').trim().split('\n')).toHaveLength(5);
    });

    if (provider === 'openai')
      it('end to end: the reviewed drafts appended to the suite run and are scored', async () => {
        appendFileSync(path.join(suite, 'cases.jsonl'), readFileSync(drafts(), 'utf8'));
        const answers: Record<string, Reply> = {
          'Is SKU-777 in stock?': { calls: [{ name: 'get_stock', arguments: { sku: 'SKU-777' } }] },
          'How many units of SKU-808 are left?': { calls: [{ name: 'get_stock', arguments: { sku: 'SKU-808' } }] },
          'What is the capital of France?': { text: 'Paris.' },
          'Is it still in stock?': { text: 'Which item (SKU) do you mean?' },
          'Check stock for SKU-111 and SKU-222 please': {
            calls: [
              { name: 'get_stock', arguments: { sku: 'SKU-222' } },
              { name: 'get_stock', arguments: { sku: 'SKU-111' } },
            ],
          },
        };
        const model = await startChatCompletions((q) => answers[q.key] ?? { text: 'no' });
        try {
          const report = path.join(tmp.dir, 'report.json');
          const res = await evalCli([
            'run',
            '--suite',
            suite,
            '--model',
            'm',
            '--base-url',
            model.baseUrl,
            '--out',
            path.join(tmp.dir, 'run.jsonl'),
            '--report',
            report,
          ]);
          expect(res.code).toBe(0);
          const r = JSON.parse(readFileSync(report, 'utf8')) as Report;
          expect(r.suite.cases).toBe(12 + 5);
          expect(r.models[0]!.byTag.generated!.strictPassRate).toMatchObject({ numerator: 5, denominator: 5 });
          expect(r.models[0]!.byTag.missing_info!.clarificationAccuracy).toMatchObject({
            numerator: 1,
            denominator: 1,
          });
        } finally {
          await model.close();
        }
      });
  });
}

describe('toolwatch eval generate: bad usage', () => {
  const tmp = tempDir('toolwatch-gen-bad-');
  afterAll(() => tmp.remove());
  it.each([
    [['--categories', 'nonsense'], 'unknown category'],
    [['--per-tool', '0'], '--per-tool'],
  ])('%j → exit 2, nothing written', async (extra, error) => {
    const suite = copySuite('shop', tmp.dir);
    const out = path.join(tmp.dir, 'x.jsonl');
    const res = await evalCli([
      'generate',
      '--suite',
      suite,
      '--model',
      'm',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--out',
      out,
      ...extra,
    ]);
    expect(res.code).toBe(2);
    expect(res.err).toContain(error);
    expect(existsSync(out)).toBe(false);
  });
});
