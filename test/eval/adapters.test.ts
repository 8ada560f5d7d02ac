/**
 * The two adapters against real local servers speaking each protocol: every provider failure maps
 * to one provider_error code (coverage loss), 429 waits the real Retry-After, an over-long one is
 * not waited for, and nothing is coerced on the way back.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterResult, ModelAdapter } from '../../src/eval/adapters/adapter.js';
import { createAdapterRegistry } from '../../src/eval/adapters/index.js';
import type { ProviderKind } from '../../src/eval/suite.js';
import type { Message } from '../../src/eval/types.js';
import { startAnthropicMessages } from '../fakes/anthropic-messages.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { call, perCase, text, type FakeServer, type Reply } from '../fakes/scripted.js';

const TOOLS = [
  {
    name: 'get_stock',
    description: 'Stock',
    parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  },
];
const ask = (prompt: string): Message[] => [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: prompt },
];

const SCRIPT = perCase({
  right: call('get_stock', { sku: 'A' }),
  'json-broken': call('get_stock', '{"sku": "A"'),
  'as-number': call('get_stock', { sku: 750 }),
  refuse: { refusal: 'No.' },
  'bad-request': { status: 400, message: 'tools.0: unsupported keyword pattern' },
  'not-found': { status: 404, message: 'model not found' },
  'server-once': [{ status: 500 }, text('ok now')],
  'rate-limited': [{ status: 429, headers: { 'retry-after': '1' }, message: 'slow down' }, text('after the wait')],
  'rate-limited-real': [
    { status: 429, headers: { 'retry-after': '1' }, message: 'slow down' },
    text('after a real wait'),
  ],
  'rate-limited-long': { status: 429, headers: { 'retry-after': '3600' }, message: 'come back in an hour' },
  'rate-limited-ms': [{ status: 429, headers: { 'retry-after-ms': '250' } }, text('ms honoured')],
  'overloaded-once': [{ status: 529, message: 'Overloaded' }, text('recovered')],
  hang: 'hang',
} as Record<string, Reply | Reply[]>);

const KEY = 'sk-adapter-test-key-000000000000';

for (const provider of ['openai', 'anthropic'] as ProviderKind[]) {
  describe(`${provider} adapter`, () => {
    let fake: FakeServer;
    let adapter: ModelAdapter;
    const waits: number[] = [];
    const make = (sleep: (ms: number) => Promise<void>, apiKey = KEY) =>
      createAdapterRegistry().create(
        { provider, model: 'm', label: `${provider}/m`, baseUrl: fake.baseUrl },
        { apiKey, timeoutMs: 1000, retry: { maxRetries: 2, maxRetryWaitMs: 60_000, sleep } },
      );

    beforeAll(async () => {
      fake =
        provider === 'openai'
          ? await startChatCompletions(SCRIPT, { apiKey: KEY })
          : await startAnthropicMessages(SCRIPT, { apiKey: KEY });
      adapter = make(async (ms) => void waits.push(ms));
    });
    afterAll(() => fake.close());

    const complete = (prompt: string, a = adapter): Promise<AdapterResult> =>
      a.complete({ messages: ask(prompt), tools: TOOLS, temperature: 0 });

    it('a call comes back with its arguments untouched', async () => {
      const r = await complete('right');
      expect(r.outcome).toMatchObject({ kind: 'tool_calls', calls: [{ name: 'get_stock' }] });
      const args = (r.outcome as { calls: { arguments: unknown }[] }).calls[0]!.arguments;
      expect(args).toEqual(provider === 'openai' ? '{"sku":"A"}' : { sku: 'A' });
      expect(r.usage!.inputTokens).toBeGreaterThan(0);
      expect(r.attempts).toBe(1);
      const n = await complete('as-number');
      expect((n.outcome as { calls: { arguments: unknown }[] }).calls[0]!.arguments).toEqual(
        provider === 'openai' ? '{"sku":750}' : { sku: 750 },
      );
    });

    if (provider === 'openai') {
      it('broken JSON stays the string the model wrote', async () => {
        const r = await complete('json-broken');
        expect(r.outcome).toMatchObject({
          kind: 'tool_calls',
          calls: [{ name: 'get_stock', arguments: '{"sku": "A"' }],
        });
      });
    }

    it('a refusal is a refusal', async () => {
      expect((await complete('refuse')).outcome).toEqual({ kind: 'refusal', text: 'No.' });
    });

    it('400 and 404 are rejected requests, not retried', async () => {
      const before = fake.received.length;
      const r = await complete('bad-request');
      expect(r.outcome).toMatchObject({ kind: 'provider_error', code: 'rejected', status: 400 });
      expect(r.response).toMatchObject({ status: 400 });
      expect((await complete('not-found')).outcome).toMatchObject({ code: 'rejected', status: 404 });
      expect(fake.received.length - before).toBe(2);
    });

    it('a wrong key is an auth error, not retried', async () => {
      const bad = make(async () => {}, 'sk-wrong-key-1111111111111111');
      const before = fake.received.length;
      const r = await complete('right', bad);
      expect(r.outcome).toMatchObject({ kind: 'provider_error', code: 'auth', status: 401 });
      expect(fake.received.length - before).toBe(1);
    });

    it('5xx / 529 retried with backoff; 429 waits Retry-After (seconds or ms); a longer one than allowed is not waited for', async () => {
      waits.length = 0;
      expect((await complete('server-once')).outcome).toEqual({ kind: 'text', text: 'ok now' });
      expect(waits).toEqual([1000]);
      waits.length = 0;
      expect((await complete('rate-limited')).outcome).toEqual({ kind: 'text', text: 'after the wait' });
      expect(waits).toEqual([1000]);
      waits.length = 0;
      expect((await complete('rate-limited-ms')).outcome).toEqual({ kind: 'text', text: 'ms honoured' });
      expect(waits).toEqual([250]);
      waits.length = 0;
      const long = await complete('rate-limited-long');
      expect(long.outcome).toMatchObject({ kind: 'provider_error', code: 'rate_limited', status: 429 });
      expect(long.attempts).toBe(1);
      expect(waits).toEqual([]);
      if (provider === 'anthropic')
        expect((await complete('overloaded-once')).outcome).toEqual({ kind: 'text', text: 'recovered' });
    });

    it('really waits Retry-After before asking again', async () => {
      const real = make((ms) => new Promise((res) => setTimeout(res, ms)));
      const before = fake.received.length;
      expect((await complete('rate-limited-real', real)).outcome).toEqual({ kind: 'text', text: 'after a real wait' });
      const [a, b] = fake.received.slice(before);
      expect(b!.atMs - a!.atMs).toBeGreaterThanOrEqual(990);
    });

    it('a hung server is a timeout after the retries', async () => {
      waits.length = 0;
      const r = await complete('hang');
      expect(r.outcome).toMatchObject({ kind: 'provider_error', code: 'timeout' });
      expect(r.attempts).toBe(3);
      expect(waits).toEqual([1000, 2000]);
    });
  });
}

describe('no server at all', () => {
  let port: number;
  beforeAll(async () => {
    // A port that was free a moment ago: nothing listens there.
    port = await new Promise<number>((res) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => res(p));
      });
    });
  });
  it('is a connection error (coverage loss) for both adapters', async () => {
    for (const provider of ['openai', 'anthropic'] as ProviderKind[]) {
      const a = createAdapterRegistry().create(
        { provider, model: 'm', label: 'x', baseUrl: `http://127.0.0.1:${port}/v1` },
        { timeoutMs: 1000, retry: { maxRetries: 0, maxRetryWaitMs: 0, sleep: async () => {} } },
      );
      const r = await a.complete({ messages: ask('x'), tools: TOOLS });
      expect(r.outcome).toMatchObject({ kind: 'provider_error', code: 'connection' });
    }
  });

  it('history the Messages protocol cannot carry is a harness error, never sent', async () => {
    const a = createAdapterRegistry().create(
      { provider: 'anthropic', model: 'm', label: 'x', baseUrl: `http://127.0.0.1:${port}` },
      { timeoutMs: 1000, retry: { maxRetries: 0, maxRetryWaitMs: 0, sleep: async () => {} } },
    );
    const r = await a.complete({
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'get_stock', arguments: '{"sku": ' }] },
        { role: 'tool', toolCallId: 'c1', content: 'err' },
        { role: 'user', content: 'again' },
      ],
      tools: TOOLS,
    });
    expect(r.outcome).toMatchObject({ kind: 'provider_error', code: 'harness' });
    expect(r.attempts).toBe(0);
  });
});
