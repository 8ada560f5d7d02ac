/**
 * The Gemini generateContent adapter against a stand-in speaking Gemini's REST protocol: function
 * declarations in Gemini's Schema subset (the rewrite recorded on the turn), functionCall parts
 * back, functionResponse parts forward by name and id, systemInstruction, toolConfig modes per
 * tool_choice, generationConfig; a thoughtSignature sent back; safety blocks and a blocked prompt
 * are refusals, empty candidates a bad response, MALFORMED_FUNCTION_CALL an InvalidJson call; 429
 * waits Retry-After, else RetryInfo's retryDelay; 5xx retried; a hung server times out; a bad key
 * is auth.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGeminiAdapter, fromGeminiResponse } from '../../src/eval/adapters/gemini.js';
import { toGeminiSchema } from '../../src/eval/adapters/gemini-schema.js';
import type { Report } from '../../src/eval/report.js';
import { startGemini } from '../fakes/gemini.js';
import { perCase, text, type FakeServer } from '../fakes/scripted.js';
import { evalCli, readJsonl, recordedSleep, tempDir, writeSuite } from './helpers.js';

const TOOLS = [
  {
    name: 'lookup_order',
    description: 'Look up an order.',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        order_id: { type: 'string', pattern: '^ord_\\d+$' },
        channel: { type: ['string', 'null'], enum: ['web', 'phone', null] },
      },
      required: ['order_id'],
      additionalProperties: false,
    },
  },
];
let busy = 0;
let flaky = 0;
const SCRIPT = perCase({
  'Status of ord_1?': (req) =>
    req.turn === 0
      ? { calls: [{ name: 'lookup_order', arguments: { order_id: 'ord_1' }, id: 'fc_a' }] }
      : text('It shipped.'),
  'Thinking about ord_3?': (req) =>
    req.turn === 0
      ? {
          body: {
            candidates: [
              {
                content: {
                  role: 'model',
                  parts: [
                    { functionCall: { name: 'lookup_order', args: { order_id: 'ord_3' } }, thoughtSignature: 'c2ln' },
                  ],
                },
                finishReason: 'STOP',
              },
            ],
          },
        }
      : text('Delivered.'),
  'Something dangerous': { refusal: 'no' },
  'Blocked prompt': { body: { promptFeedback: { blockReason: 'SAFETY', safetyRatings: [] } } },
  'Empty answer': { body: { candidates: [], usageMetadata: { promptTokenCount: 10 } } },
  'Malformed?': {
    body: {
      candidates: [
        {
          finishReason: 'MALFORMED_FUNCTION_CALL',
          finishMessage: "Malformed function call: print(default_api.lookup_order(order_id='ord_9'))",
        },
      ],
    },
  },
  'Busy?': () =>
    ++busy === 1 ? { status: 429, headers: { 'retry-after': '2' } } : busy === 2 ? { status: 429 } : text('ok'),
  'Flaky?': () => (++flaky === 1 ? { status: 503, message: 'The model is overloaded.' } : text('fine')),
  Hello: text('Hi!'),
});

let fake: FakeServer;
beforeAll(async () => {
  fake = await startGemini(SCRIPT, { apiKey: 'g-key', retryDelay: '7.5s' });
});
afterAll(() => fake.close());

describe('gemini adapter', () => {
  it('speaks generateContent end to end', async () => {
    const t = tempDir();
    try {
      const dir = writeSuite(path.join(t.dir, 's'), {
        suite: {
          dataset_version: 1,
          temperature: 0,
          max_tokens: 400,
          max_retries: 2,
          tool_choice: ['required', 'none', { name: 'lookup_order' }],
          models: [{ provider: 'gemini', model: 'gemini-2.5-flash', base_url: fake.baseUrl }],
        },
        tools: TOOLS,
        system: 'You are a support agent.',
        cases: [
          {
            id: 'g1',
            prompt: 'Status of ord_1?',
            expected: { kind: 'tool', name: 'lookup_order', arguments: { order_id: 'ord_1' } },
            tool_results: { lookup_order: { result: { status: 'shipped' } } },
            max_turns: 2,
          },
          {
            id: 'g2',
            prompt: 'Thinking about ord_3?',
            expected: { kind: 'tool', name: 'lookup_order', arguments: { order_id: 'ord_3' } },
            tool_results: { lookup_order: { result: { status: 'delivered' } } },
            max_turns: 2,
          },
          { id: 'g3', prompt: 'Something dangerous', expected: { kind: 'tool', name: 'lookup_order' } },
          { id: 'g4', prompt: 'Blocked prompt', expected: [] },
          { id: 'g5', prompt: 'Empty answer', expected: [] },
          { id: 'g6', prompt: 'Malformed?', expected: [{ name: 'lookup_order', arguments: { order_id: 'ord_9' } }] },
          { id: 'g7', prompt: 'Busy?', expected: [] },
          { id: 'g8', prompt: 'Flaky?', expected: [] },
        ],
      });
      const { sleep, waits } = recordedSleep();
      const rep = path.join(t.dir, 'r.json');
      const out = path.join(t.dir, 'p.jsonl');
      const res = await evalCli(['run', '--suite', dir, '--out', out, '--report', rep, '--variant', 'core'], {
        env: { EVAL_API_KEY: 'g-key' },
        deps: { sleep },
      });
      expect(res.err).not.toContain('Error');
      expect(res.code).toBe(0); // no gates: failures are reported, not gated
      const r1 = fake.received.filter((r) => r.key === 'Status of ord_1?');
      expect(r1[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
      expect(r1[0]!.headers['x-goog-api-key']).toBe('g-key');
      expect(r1[0]!.body).toEqual({
        systemInstruction: { parts: [{ text: 'You are a support agent.' }] },
        contents: [{ role: 'user', parts: [{ text: 'Status of ord_1?' }] }],
        tools: [
          {
            functionDeclarations: [
              {
                name: 'lookup_order',
                description: 'Look up an order.',
                parameters: {
                  type: 'OBJECT',
                  properties: {
                    order_id: { type: 'STRING', pattern: '^ord_\\d+$' },
                    channel: { type: 'STRING', nullable: true },
                  },
                  required: ['order_id'],
                },
              },
            ],
          },
        ],
        toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
        generationConfig: { temperature: 0, maxOutputTokens: 400 },
      });
      // The tool result goes back as a functionResponse paired by id and name.
      expect(r1[1]!.body.contents).toEqual([
        { role: 'user', parts: [{ text: 'Status of ord_1?' }] },
        { role: 'model', parts: [{ functionCall: { id: 'fc_a', name: 'lookup_order', args: { order_id: 'ord_1' } } }] },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'fc_a',
                name: 'lookup_order',
                response: { ok: true, result: { status: 'shipped' } },
              },
            },
          ],
        },
      ]);
      // Gemini 3's thought signature travels back with its call; a call without an id gets the runner's.
      const r2 = fake.received.filter((r) => r.key === 'Thinking about ord_3?')[1]!.body;
      expect((r2.contents as { parts: unknown[] }[])[1]!.parts[0]).toEqual({
        functionCall: { id: 'call_1_1', name: 'lookup_order', args: { order_id: 'ord_3' } },
        thoughtSignature: 'c2ln',
      });

      const m = (JSON.parse(readFileSync(rep, 'utf8')) as Report).models[0]!;
      const obs = (id: string) => m.cases.find((c) => c.id === id)!.observations[0]!;
      expect(obs('g1').strictPass).toBe(true);
      expect(obs('g2').strictPass).toBe(true);
      expect(obs('g3')).toMatchObject({ strictPass: false, status: 'ok' });
      expect(obs('g4').strictPass).toBe(true); // a blocked prompt is a refusal: no call
      expect(obs('g5')).toMatchObject({ status: 'provider_error', errorCode: 'bad_response' });
      expect(obs('g6').problems.join()).toContain('lookup_order: InvalidJson');
      expect(obs('g7').strictPass).toBe(true);
      expect(obs('g8').strictPass).toBe(true);
      // Retry-After first, then RetryInfo's retryDelay; the 503 backs off 1 s.
      expect(waits).toEqual(expect.arrayContaining([2000, 7500, 1000]));
      expect(waits).toHaveLength(3);
      expect(m.overall.tokens.input).toBeGreaterThan(0);

      const recs = readJsonl(out).filter((r) => r.type === 'result') as {
        caseId: string;
        turns: { outcome: unknown; transform?: { name: string; changes: string[] } }[];
      }[];
      const g1 = recs.find((r) => r.caseId === 'g1')!.turns[0]!;
      expect(g1.transform).toEqual({
        name: 'gemini-schema',
        changes: [
          'lookup_order: $.properties.channel.type: null written as nullable',
          'lookup_order: $.properties.channel.enum: dropped (Gemini enums are strings only)',
          "lookup_order: $.additionalProperties: dropped (not in Gemini's Schema)",
        ],
      });
      expect(recs.find((r) => r.caseId === 'g4')!.turns[0]!.outcome).toEqual({
        kind: 'refusal',
        text: 'prompt blocked: SAFETY',
      });
      expect(recs.find((r) => r.caseId === 'g3')!.turns[0]!.outcome).toEqual({
        kind: 'refusal',
        text: 'stopped: SAFETY',
      });

      // tool_choice variants as Gemini's function calling modes.
      for (const [variant, config] of [
        ['tool_choice:required', { mode: 'ANY' }],
        ['tool_choice:none', { mode: 'NONE' }],
        ['tool_choice:lookup_order', { mode: 'ANY', allowedFunctionNames: ['lookup_order'] }],
      ] as const) {
        const before = fake.received.length;
        await evalCli(['run', '--suite', dir, '--out', path.join(t.dir, `${variant}.jsonl`), '--variant', variant], {
          env: { EVAL_API_KEY: 'g-key' },
          deps: { sleep },
        });
        const sent = fake.received.slice(before).find((r) => r.key === 'Hello' || r.key === 'Status of ord_1?')!;
        expect(sent.body.toolConfig).toEqual({ functionCallingConfig: config });
      }
    } finally {
      t.remove();
    }
  });

  it('a hung server is a timeout, a bad key is auth, neither retried forever', async () => {
    const { sleep } = recordedSleep();
    const spec = { provider: 'gemini', model: 'gemini-2.5-flash', baseUrl: fake.baseUrl, label: 'g' };
    fake.script = () => 'hang';
    try {
      const hung = await createGeminiAdapter(spec, {
        apiKey: 'g-key',
        timeoutMs: 200,
        retry: { maxRetries: 1, maxRetryWaitMs: 60_000, sleep },
      }).complete({ messages: [{ role: 'user', content: 'Hello' }], tools: [] });
      expect(hung.outcome).toMatchObject({ kind: 'provider_error', code: 'timeout' });
      expect(hung.attempts).toBe(2);
    } finally {
      fake.script = SCRIPT;
    }
    const bad = await createGeminiAdapter(spec, {
      apiKey: 'wrong',
      timeoutMs: 2000,
      retry: { maxRetries: 2, maxRetryWaitMs: 60_000, sleep },
    }).complete({ messages: [{ role: 'user', content: 'Hello' }], tools: [] });
    expect(bad.outcome).toMatchObject({ kind: 'provider_error', code: 'auth', status: 400 });
    expect(bad.attempts).toBe(1);
  });

  it('reads the documented answer shapes and rewrites schemas into Gemini’s subset', () => {
    expect(fromGeminiResponse({ candidates: [{ content: { parts: [{ text: 'a' }, { text: 'b' }] } }] })).toEqual({
      kind: 'text',
      text: 'ab',
    });
    // A thought summary is not the answer.
    expect(
      fromGeminiResponse({ candidates: [{ content: { parts: [{ text: 'hmm', thought: true }, { text: 'ok' }] } }] }),
    ).toEqual({ kind: 'text', text: 'ok' });
    expect(
      fromGeminiResponse({ candidates: [{ content: { parts: [{ functionCall: { args: {} } }] } }] }),
    ).toMatchObject({
      kind: 'provider_error',
      code: 'bad_response',
    });
    expect(fromGeminiResponse({ candidates: [{ finishReason: 'RECITATION' }] })).toEqual({
      kind: 'refusal',
      text: 'stopped: RECITATION',
    });
    const r = toGeminiSchema({
      type: 'object',
      $defs: { Money: { type: 'object', properties: { amount: { type: 'number', exclusiveMinimum: 0 } } } },
      properties: {
        price: { $ref: '#/$defs/Money' },
        kind: { const: 'refund' },
        who: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      },
    });
    expect(r.schema).toEqual({
      type: 'OBJECT',
      properties: {
        price: { type: 'OBJECT', properties: { amount: { type: 'NUMBER' } } },
        kind: { enum: ['refund'], type: 'STRING' },
        who: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] },
        tags: { type: 'ARRAY', items: { type: 'STRING' } },
      },
    });
    expect(r.changes).toEqual([
      '$.properties.price: $ref #/$defs/Money inlined',
      "$.properties.price.properties.amount.exclusiveMinimum: dropped (not in Gemini's Schema)",
      '$.properties.kind.const: written as a one-value enum',
      '$.properties.who.oneOf: oneOf written as anyOf (exactly one is not expressible)',
      "$.properties.tags.uniqueItems: dropped (not in Gemini's Schema)",
    ]);
  });
});

describe('adapter registry', () => {
  it('lists the shipped adapters as PROVIDERS and refuses a name registered twice', async () => {
    const { createAdapterRegistry, PROVIDERS } = await import('../../src/eval/adapters/index.js');
    expect(PROVIDERS).toEqual(['openai', 'anthropic', 'openai-responses', 'gemini']);
    const r = createAdapterRegistry();
    expect(() => r.register('gemini', createGeminiAdapter)).toThrow('eval adapter gemini is already registered');
    // The suite schema takes its provider names from the registry.
    const { suiteSchema } = await import('../../src/eval/suite.js');
    expect(suiteSchema.properties.models.items.properties.provider.enum).toEqual([...PROVIDERS]);
  });
});
