/**
 * mayHoldCalls (normalize/messages.ts): the check that lets a model's text-only output go unparsed
 * must say "may hold calls" for every shape a call is read from, escapes included.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  firstUserText,
  firstUserTextOfJson,
  mayHoldCalls,
  proposalsOf,
  readMessages,
} from '../../src/normalize/messages.js';
import { jsonValue } from '../../src/util/values.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { makeSpan } from '../helpers/spans.js';

/** One output per call shape readMessages knows. */
const CALL_SHAPES: Record<string, unknown> = {
  'GenAI tool_call part': [{ role: 'assistant', parts: [{ type: 'tool_call', id: 'a', name: 'f', arguments: '{}' }] }],
  'Responses function_call item': [{ type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' }],
  'Vercel tool-call part': [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f' }] }],
  'Anthropic tool_use block': [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: {} }] }],
  'pi-ai toolCall part': [{ role: 'assistant', content: [{ type: 'toolCall', id: 'a', name: 'f', arguments: {} }] }],
  'Bedrock toolUse block': [{ role: 'assistant', content: [{ toolUse: { toolUseId: 'a', name: 'f', input: {} } }] }],
  'Gemini function_call block': [{ role: 'model', parts: [{ function_call: { name: 'f', args: {} } }] }],
  'Gemini functionCall block': [{ role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] }],
  'OpenAI tool_calls': [{ role: 'assistant', tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{}' } }] }],
  'OpenAI function_call': [{ role: 'assistant', function_call: { name: 'f', arguments: '{}' } }],
  'choice with a JSON-string message': [
    { index: 0, message: JSON.stringify({ role: 'assistant', tool_calls: [{ id: 'a', name: 'f' }] }) },
  ],
};

describe('mayHoldCalls', () => {
  it.each(Object.entries(CALL_SHAPES))('%s: read as a call, and said to may hold one', (_, value) => {
    const text = JSON.stringify(value);
    expect(proposalsOf(readMessages(JSON.parse(text)))).toHaveLength(1);
    expect(mayHoldCalls(text)).toBe(true);
  });

  it('says no for text alone, and yes for a \\u escape that could spell a call type', () => {
    expect(mayHoldCalls(JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Hi.' }] }]))).toBe(
      false,
    );
    expect(mayHoldCalls('[{"role":"assistant","parts":[{"type":"tool\\u005fcall","name":"f"}]}]')).toBe(true);
  });

  it('an escaped call type in a model output is still counted', () => {
    const f = builtinDialects().normalizeSpan(
      makeSpan({
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"tool\\u005fcall","id":"c1","name":"f"}]}]',
      }),
    )!;
    expect(f.proposals.map((p) => p.name)).toEqual(['f']);
  });
});

/** Every `gen_ai.input.messages` value in the fixtures kept here, as sent. */
function fixtureHistories(): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.key === 'gen_ai.input.messages' && typeof (o.value as { stringValue?: unknown })?.stringValue === 'string')
        out.push((o.value as { stringValue: string }).stringValue);
      Object.values(o).forEach(visit);
    }
  };
  const root = path.resolve(import.meta.dirname, '../fixtures');
  for (const f of [
    'dialects/microsoft-agent-framework/trace.json',
    'dialects/openllmetry/trace.json',
    'dialects/strands/trace.json',
    'dialects/pydantic-ai/trace.json',
    'public/openinference-genai/otel_genai_client_span_tool_calls.json',
  ])
    visit(JSON.parse(readFileSync(path.join(root, f), 'utf8')));
  return out;
}

describe('firstUserTextOfJson: the first user message without reading the rest of the history', () => {
  const full = (v: unknown) => firstUserText(readMessages(jsonValue(v)));
  const histories = [
    ...fixtureHistories(),
    JSON.stringify([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'weather in Brno?' },
    ]),
    JSON.stringify([
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'a' },
          { type: 'text', content: 'b' },
        ],
      },
    ]),
    JSON.stringify([
      { role: 'user', content: [] },
      { role: 'user', content: 'the one with text' },
    ]),
    JSON.stringify([{ role: 'assistant', content: 'no user here' }]),
    JSON.stringify({ messages: [{ role: 'user', content: 'inside an object' }] }),
    JSON.stringify([{ message: { role: 'user', content: 'inside a choice' } }]),
    '[]',
    '',
    'not json',
  ];

  it.each(histories.map((h) => [h.slice(0, 60), h]))('%s: what reading every message answers', (_, h) => {
    expect(firstUserTextOfJson(h)).toBe(full(h));
    const parsed = jsonValue(h);
    if (parsed === undefined) return;
    const pretty = JSON.stringify(parsed, null, 2);
    expect(firstUserTextOfJson(pretty)).toBe(full(pretty));
  });

  it('reads the fixtures: some of them have a user message to find', () => {
    expect(fixtureHistories().filter((h) => full(h) !== undefined).length).toBeGreaterThan(0);
  });

  it('a history cut short after the first user message still yields it; cut before, nothing', () => {
    const h = JSON.stringify([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: 'sunny' },
    ]);
    expect(full(h.slice(0, -10))).toBeUndefined();
    expect(firstUserTextOfJson(h.slice(0, -10))).toBe('weather?');
    expect(firstUserTextOfJson(h.slice(0, h.indexOf('weather') + 3))).toBeUndefined();
    // An element that does not parse ends the walk: nothing after it is trusted.
    expect(firstUserTextOfJson('[{"role":"system",}, {"role":"user","content":"x"}]')).toBeUndefined();
  });

  it('a structured (decoded) history is read as before', () => {
    const v = [{ role: 'user', content: 'decoded' }];
    expect(firstUserTextOfJson(v)).toBe('decoded');
  });
});
