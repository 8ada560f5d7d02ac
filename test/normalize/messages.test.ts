/**
 * mayHoldCalls (normalize/messages.ts): the check that lets a model's text-only output go unparsed
 * must say "may hold calls" for every shape a call is read from, escapes included.
 */
import { describe, expect, it } from 'vitest';
import { mayHoldCalls, proposalsOf, readMessages } from '../../src/normalize/messages.js';
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
