/**
 * Lazy facts (normalize/facts.ts): a model span's history is parsed only when `replays` or
 * `userMessage` is read, property reads and JSON see them as plain values, and
 * the objects stay in V8's fast mode — the reason the accessors are shared rather than made per object.
 */
import { setFlagsFromString } from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SpanFacts } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { baseFacts, lazyFact, lazyHistory } from '../../src/normalize/facts.js';
import { readMessages } from '../../src/normalize/messages.js';
import { makeSpan } from '../helpers/spans.js';

const history = JSON.stringify([
  { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
  {
    role: 'assistant',
    parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
  },
  { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'rainy' }] },
]);
const output = JSON.stringify([
  { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_2', name: 'get_time', arguments: '{}' }] },
]);
const modelSpan = () =>
  makeSpan({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.input.messages': history,
    'gen_ai.output.messages': output,
  });

setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** A facts object made as a plain object (as a Langfuse observation's is), not by baseFacts. */
const plainFacts = (role: SpanFacts['role']): SpanFacts => ({
  dialect: 'test',
  traceId: 'a'.repeat(32),
  spanId: 'b'.repeat(16),
  parentSpanId: '',
  service: 'svc',
  startTimeMs: 1,
  endTimeMs: 2,
  role,
  proposals: [],
  replays: [],
});

afterEach(() => vi.restoreAllMocks());

describe('lazy facts', () => {
  it('parses the history only when a lazy fact is read, and once for both', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const f = builtinDialects().normalizeSpan(modelSpan())!;
    const parsesOfHistory = () => parse.mock.calls.filter(([text]) => text === history).length;
    expect(f.proposals.map((p) => p.name)).toEqual(['get_time']);
    expect(parsesOfHistory()).toBe(0);
    expect(f.userMessage).toBe('Weather in Paris?');
    expect(f.replays.map((r) => r.callId)).toEqual(['call_1']);
    expect(f.replays).toBe(f.replays);
    expect(parsesOfHistory()).toBe(1);
  });

  it('reads, assignments and JSON see the values; no own key or symbol is hidden in the facts', () => {
    const f = builtinDialects().normalizeSpan(modelSpan())!;
    // The lazy facts are the prototype's accessors (facts.ts SpanFactsObject): not own keys, but there to read.
    expect('replays' in f && 'userMessage' in f).toBe(true);
    expect(Object.keys(f)).not.toContain('replays');
    expect(Object.getOwnPropertySymbols(f)).toEqual([]);
    const json = JSON.parse(JSON.stringify(f)) as SpanFacts;
    expect(json.userMessage).toBe('Weather in Paris?');
    expect(json.replays).toHaveLength(1);
    expect(json.proposals.map((p) => p.name)).toEqual(['get_time']);
    expect(json.dialect).toBe('genai');
  });

  it('a plain facts object made lazy keeps them as enumerable keys that spreads carry', () => {
    const f = plainFacts('model');
    lazyFact(f, 'userMessage', () => 'hello');
    expect(Object.keys(f)).toContain('userMessage');
    expect({ ...f }.userMessage).toBe('hello');
    expect(Object.getOwnPropertySymbols(f).filter((s) => Object.getOwnPropertyDescriptor(f, s)?.enumerable)).toEqual(
      [],
    );
  });

  it('an assignment replaces the computation, before or after a read', () => {
    const f = builtinDialects().normalizeSpan(modelSpan())!;
    f.userMessage = 'set';
    expect(f.userMessage).toBe('set');
    expect(f.replays).toHaveLength(1);
    f.replays = [];
    expect(f.replays).toEqual([]);
  });

  it('a fact first set as a plain value can still be made lazy', () => {
    const f = plainFacts('model');
    expect(f.replays).toEqual([]);
    let runs = 0;
    lazyFact(f, 'replays', () => {
      runs++;
      return [];
    });
    lazyFact(f, 'userMessage', () => 'hello');
    expect(runs).toBe(0);
    expect(f.replays).toEqual([]);
    expect(f.userMessage).toBe('hello');
    expect(runs).toBe(1);
  });

  it('parses a text-only output only when its text is read, and a call-carrying one at once', () => {
    const text = JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'It rains.' }] }]);
    const parse = vi.spyOn(JSON, 'parse');
    const span = makeSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': text });
    const f = builtinDialects().normalizeSpan(span)!;
    const parsesOf = (t: string) => parse.mock.calls.filter(([x]) => x === t).length;
    expect(f.proposals).toEqual([]);
    expect(parsesOf(text)).toBe(0);
    expect(f.outputText).toBe('It rains.');
    expect(JSON.parse(JSON.stringify(f)).outputText).toBe('It rains.');
    expect(parsesOf(text)).toBe(1);
    builtinDialects().normalizeSpan(modelSpan());
    expect(parsesOf(output)).toBe(1);
  });

  it('a second history for one fact leaves the other to the first, read once each', () => {
    const f = builtinDialects().normalizeSpan(modelSpan())!;
    const other = [
      { role: 'user', content: 'Other question' },
      { role: 'assistant', tool_calls: [{ id: 'call_9', function: { name: 'other_tool', arguments: '{}' } }] },
    ];
    let reads = 0;
    lazyHistory(
      f,
      other,
      (v) => {
        reads++;
        return readMessages(v);
      },
      true,
      false,
    );
    expect(f.replays.map((r) => r.callId)).toEqual(['call_9']);
    expect(f.userMessage).toBe('Weather in Paris?');
    expect(f.replays).toBe(f.replays);
    expect(reads).toBe(1);
    const plain = plainFacts('agent');
    lazyHistory(plain, other, readMessages, false);
    expect(plain.replays).toEqual([]);
    expect(plain.userMessage).toBe('Other question');
  });

  it('gives the facts of every span one hidden class, whatever its role, dialect and facts set', () => {
    const dialects = builtinDialects();
    const read = [
      modelSpan(),
      makeSpan({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_time',
        'gen_ai.tool.call.id': 'c1',
      }),
      makeSpan({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' }),
      makeSpan({ 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o' }),
      makeSpan({ 'openinference.span.kind': 'TOOL', 'tool.name': 'get_time' }),
      { ...makeSpan({ 'gen_ai.operation.name': 'chat' }), statusCode: 2 as const, statusMessage: 'boom' },
    ].map((s) => dialects.normalizeSpan(s)!);
    expect(new Set(read.map((f) => f.role))).toEqual(new Set(['model', 'tool', 'agent']));
    expect(new Set(read.map((f) => f.dialect))).toEqual(new Set(['genai', 'openinference']));
    expect(read[5]!.error).toBe('boom');
    for (const f of read) expect(haveSameMap(f, read[0]!)).toBe(true);
    // A fact set later (as the pipeline and the log join do) moves no object to another class.
    read[1]!.claimId = 'x';
    read[2]!.awaitsSpan = true;
    expect(haveSameMap(read[1]!, read[0]!) && haveSameMap(read[2]!, read[0]!)).toBe(true);
    expect(baseFacts(makeSpan(), 'test', 'other').replays).toEqual([]);
  });

  it('keeps the facts of a model span with a history in fast mode', () => {
    const f = builtinDialects().normalizeSpan(modelSpan())!;
    expect(hasFastProperties(f)).toBe(true);
  });
});
