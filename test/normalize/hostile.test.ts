/** Input an attacker controls must not throw, overflow the stack, or touch prototypes. */
import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { parseToolDefs, toToolDef } from '../../src/tools/tooldefs.js';
import { TOO_DEEP_RAW, toToolArgs } from '../../src/util/values.js';
import { kv, makeEvent, makeSpan } from '../helpers/spans.js';

const dialects = builtinDialects();

const DEEP = 100_000;
const deepArray = '['.repeat(DEEP) + ']'.repeat(DEEP);
const deepObject = '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP);

function prototypesClean(): void {
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
}

describe('hostile input', () => {
  it('__proto__ and constructor keys in arguments are plain data', () => {
    const rawArgs = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"city":"Paris"}';
    const messages = `[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"get_weather","arguments":${rawArgs}}]}]`;
    const f = dialects.normalizeSpan(
      makeSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': messages }),
    )!;
    const args = f.proposals[0]!.args;
    expect(args.kind).toBe('structured');
    if (args.kind !== 'structured') return;
    expect(JSON.parse(args.raw)).toEqual(JSON.parse(rawArgs));
    expect(Object.keys(args.value as object)).toEqual(['__proto__', 'constructor', 'city']);
    prototypesClean();
  });

  it('__proto__ keys in structured (kvlist) arguments and numbered keys are plain data', () => {
    const structured = kv(JSON.parse('{"__proto__":{"polluted":true},"x":1}'));
    const f = dialects.normalizeSpan(
      makeSpan({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 't',
        'gen_ai.tool.call.arguments': structured,
        'gen_ai.completion.__proto__.polluted': 'yes',
        'llm.request.functions.0.__proto__': 'yes',
      }),
    )!;
    expect(f.execution?.args).toMatchObject({ kind: 'structured', raw: '{"__proto__":{"polluted":true},"x":1}' });
    prototypesClean();
  });

  it('tool definitions named __proto__ are plain data', () => {
    const defs = parseToolDefs('[{"name":"__proto__","parameters":{"__proto__":{"polluted":true}}}]');
    expect(defs?.map((d) => d.name)).toEqual(['__proto__']);
    prototypesClean();
  });

  it.each([
    ['gen_ai.output.messages (array)', { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': deepArray }],
    ['gen_ai.output.messages (object)', { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': deepObject }],
    ['gen_ai.input.messages', { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': deepArray }],
    ['gen_ai.tool.definitions', { 'gen_ai.operation.name': 'chat', 'gen_ai.tool.definitions': deepArray }],
    ['ai.response.toolCalls', { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.response.toolCalls': deepArray }],
    ['gen_ai.completion', { 'gen_ai.completion': deepObject }],
  ])('a 100,000-deep JSON string in %s does not throw', (_name, attributes) => {
    const f = dialects.normalizeSpan(makeSpan(attributes));
    expect(f).toBeDefined();
    expect(f!.proposals).toEqual([]);
  });

  it('100,000-deep arguments inside a tool call: the call survives with an unparseable raw', () => {
    const messages = `[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"f","arguments":${deepObject}}]}]`;
    const f = dialects.normalizeSpan(
      makeSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': messages }),
    )!;
    expect(f.proposals).toHaveLength(1);
    expect(f.proposals[0]!.args).toEqual({ kind: 'string', raw: TOO_DEEP_RAW });
    expect(() => JSON.parse(TOO_DEEP_RAW)).toThrow();
  });

  it('deep results, deep event bodies and deep tool results do not throw', () => {
    const deep = JSON.parse(deepObject) as unknown;
    const spans = [
      makeSpan({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 't',
        'gen_ai.tool.call.result': deepObject,
      }),
      makeSpan({ 'gen_ai.operation.name': 'chat' }, { events: [makeEvent('gen_ai.choice', { body: deepObject })] }),
      makeSpan({ 'openinference.span.kind': 'TOOL', 'tool.name': 't', 'tool.parameters': deepObject }),
    ];
    expect(dialects.normalizeSpans(spans)).toHaveLength(3);
    expect(toToolArgs(deep)).toEqual({ kind: 'string', raw: TOO_DEEP_RAW });
    expect(toToolDef(deepObject)).toBeUndefined();
  });

  it('invalid JSON everywhere: readers do not throw, arguments stay raw strings', () => {
    const f = dialects.normalizeSpan(
      makeSpan({
        'gen_ai.operation.name': 'chat',
        'gen_ai.tool.definitions': '[{"name":',
        'gen_ai.input.messages': 'not json',
        'gen_ai.output.messages':
          '[{"role":"assistant","parts":[{"type":"tool_call","name":"f","arguments":"{\\"a\\": tru"}]}]',
      }),
    )!;
    expect(f.offered).toBeUndefined();
    expect(f.proposals.map((p) => p.args)).toEqual([{ kind: 'string', raw: '{"a": tru' }]);
  });

  it('wrong types in every position are ignored, not fatal', () => {
    const junk = [
      1,
      'x',
      null,
      true,
      [],
      {},
      [[1]],
      { parts: 5 },
      { parts: [{ type: 'tool_call', name: 7 }] },
      { tool_calls: 'nope' },
    ];
    const f = dialects.normalizeSpan(
      makeSpan({
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': junk,
        'gen_ai.input.messages': JSON.stringify(junk),
        'gen_ai.tool.definitions': junk,
        'gen_ai.usage.input_tokens': 'many',
      }),
    )!;
    expect(f.proposals).toEqual([]);
    expect(f.replays).toEqual([]);
    expect(f.inputTokens).toBeUndefined();
  });

  it('huge numbered indices do not allocate sparse arrays', () => {
    const f = dialects.normalizeSpan(
      makeSpan({
        'openinference.span.kind': 'LLM',
        'llm.output_messages.999999.message.tool_calls.0.tool_call.function.name': 'f',
        'llm.output_messages.99999999999.message.tool_calls.0.tool_call.function.name': 'g',
      }),
    )!;
    expect(f.proposals.map((p) => p.name)).toEqual(['f']);
  });
});
