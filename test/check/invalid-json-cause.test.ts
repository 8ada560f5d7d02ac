/**
 * The InvalidJson cause: table-driven over broken argument strings as models and instrumentations
 * produce them, then through the dialect readers with real fixtures (OpenInference and OpenTelemetry
 * GenAI public examples, the Vercel AI SDK and OpenLLMetry framework traces) for the finish reason.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/check/classify.js';
import { invalidJsonCause, isCutOff } from '../../src/check/invalid-json-cause.js';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { finishReasonsOf } from '../../src/normalize/finish-reasons.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { loadDialectFixtures } from '../helpers/dialect-fixtures.js';
import { makeEvent, makeSpan, readFixture } from '../helpers/spans.js';

describe('invalidJsonCause', () => {
  it.each([
    ['cut inside a string', '{"city": "Osl', 'truncated'],
    ['cut after a key', '{"city":', 'truncated'],
    ['cut inside a nested array', '{"items": [{"sku": "A-1"}, {"sku"', 'truncated'],
    ['cut inside a number', '{"amount": 12.', 'truncated'],
    ['cut inside a literal', '{"ok": tr', 'truncated'],
    ['cut after an escape', '{"q": "a\\', 'truncated'],
    ['two objects glued by a stream', '{"city":"Oslo"}{"city":"Paris"}', 'concatenated'],
    ['glued with whitespace, an array after', '{"a":1}\n[1]', 'concatenated'],
    ['glued, the second cut off', '{"a":1}{"a":', 'concatenated'],
    ['prose after the object', '{"city":"Oslo"} I hope that helps!', 'trailing_text'],
    ['a stray closing brace', '{"city":"Oslo"}}', 'trailing_text'],
    ['python dict repr', "{'city': 'Oslo'}", 'python_literal'],
    ['python True', '{"verbose": True}', 'python_literal'],
    ['python None', '{"limit": None}', 'python_literal'],
    ['a JSON array', '[1, 2]', 'not_object'],
    ['a JSON string', '"Oslo"', 'not_object'],
    ['null', 'null', 'not_object'],
    ['only whitespace', '  \n ', 'empty'],
    ['prose before the object', 'Sure: {"city": "Oslo"}', 'other'],
    ['a trailing comma', '{"a": 1,}', 'other'],
    ['unquoted key', '{city: "Oslo"}', 'other'],
  ])('%s', (_name, raw, cause) => {
    expect(invalidJsonCause(raw)).toBe(cause);
  });

  it('a cut-off finish reason makes any broken text truncated, whatever it looks like', () => {
    expect(invalidJsonCause("{'city': 'Os", ['length'])).toBe('truncated');
    expect(invalidJsonCause('{"a":1} and', ['MAX_TOKENS'])).toBe('truncated');
    expect(invalidJsonCause('{"a":1} and', ['stop'])).toBe('trailing_text');
    // Valid JSON that is not an object stays not_object: the text is whole.
    expect(invalidJsonCause('[1]', ['length'])).toBe('not_object');
  });

  it.each([
    ['length', true],
    ['max_tokens', true],
    ['MAX_TOKENS', true],
    ['max_output_tokens', true],
    ['stop', false],
    ['tool_calls', false],
    ['end_turn', false],
  ])('isCutOff(%s) = %s', (reason, cut) => {
    expect(isCutOff(reason)).toBe(cut);
  });

  it('deep nesting is scanned without recursion', () => {
    expect(invalidJsonCause(`{"a":${'['.repeat(100_000)}`)).toBe('truncated');
  });
});

const dialects = builtinDialects();
const schemas = new SchemaCache();
const registry = new ToolRegistry();
const dir = '../../../shared/fixtures/public/openinference-genai';

/** The cause the checker gives each proposal of a span, read by the real dialect readers. */
function causesOf(span: ReturnType<typeof makeSpan>): string[] {
  const facts = dialects.normalizeSpan(span);
  if (!facts) throw new Error('no reader took the span');
  return facts.proposals.map((p) => {
    const o = classify(
      {
        name: p.name,
        args: p.args,
        service: 'svc',
        ...(facts.finishReasons ? { finishReasons: facts.finishReasons } : {}),
      },
      registry,
      schemas,
    );
    return o.outcome === 'InvalidJson' ? o.cause : o.outcome;
  });
}

describe('finish reasons from real instrumentations', () => {
  // The public OpenInference example, its response now cut at max_completion_tokens while writing a
  // tool call: OpenInference carries the provider's raw response in output.value.
  const openinference = () => {
    const a = readFixture(`${dir}/openinference_client_span_tool_calls.json`);
    a['llm.output_messages.0.message.tool_calls.0.tool_call.id'] = 'call_9';
    a['llm.output_messages.0.message.tool_calls.0.tool_call.function.name'] = 'get_weather';
    a['llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments'] = '{"location": "Par';
    return a;
  };
  // The public OpenTelemetry GenAI example in the same state: gen_ai.response.finish_reasons.
  const genai = (reasons: string[], args: string) => {
    const a = readFixture(`${dir}/otel_genai_client_span_tool_calls.json`);
    a['gen_ai.response.finish_reasons'] = reasons;
    a['gen_ai.output.messages'] = JSON.stringify([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_9', name: 'get_weather', arguments: args }] },
    ]);
    return a;
  };

  it('OpenInference: finish_reason length in output.value', () => {
    const a = openinference();
    a['output.value'] = JSON.stringify({ choices: [{ finish_reason: 'length' }] });
    expect(finishReasonsOf(makeSpan(a))).toEqual(['length']);
    expect(causesOf(makeSpan(a))).toEqual(['truncated']);
  });

  it('OpenTelemetry GenAI: gen_ai.response.finish_reasons ["length"] turns trailing text into truncated', () => {
    expect(causesOf(makeSpan(genai(['length'], '{"location":"Paris"} see above')))).toEqual(['truncated']);
    expect(causesOf(makeSpan(genai(['stop'], '{"location":"Paris"} see above')))).toEqual(['trailing_text']);
    expect(causesOf(makeSpan(genai(['stop'], '{"location":"Paris"}{"location":"Oslo"}')))).toEqual(['concatenated']);
  });

  it('deprecated GenAI events and OpenLLMetry indexed attributes', () => {
    const span = makeSpan(
      { 'gen_ai.completion.0.finish_reason': 'max_tokens' },
      {
        events: [makeEvent('gen_ai.choice', { finish_reason: 'length' })],
      },
    );
    expect(finishReasonsOf(span).sort()).toEqual(['length', 'max_tokens']);
  });

  it('the framework fixtures that report finish reasons carry them onto their model spans', () => {
    const byFixture = new Map(loadDialectFixtures().map((f) => [f.name, f]));
    for (const [name, expected] of [
      ['vercel-ai', 'tool-calls'],
      ['openllmetry', 'tool_call'],
    ] as const) {
      const spans = byFixture.get(name)!.spans;
      const seen = spans.flatMap((s) => dialects.normalizeSpan(s)?.finishReasons ?? []);
      expect(seen, name).toContain(expected);
    }
  });
});
