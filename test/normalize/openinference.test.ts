import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import type { Span } from '../../src/model.js';
import { makeSpan } from '../helpers/spans.js';
import { c, summarize, type FactsSummary } from './summary.js';

const dialects = builtinDialects();

const llm = {
  'openinference.span.kind': 'LLM',
  'llm.model_name': 'gpt-4o',
  'llm.provider': 'openai',
  'llm.system': 'openai',
  'llm.token_count.prompt': 40,
  'llm.token_count.completion': 9,
  'llm.tools.0.tool.json_schema': JSON.stringify({
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object' } },
  }),
  'llm.tools.1.tool.json_schema': JSON.stringify({ name: 'search', input_schema: { type: 'object' } }),
  'llm.input_messages.0.message.role': 'system',
  'llm.input_messages.0.message.content': 'Be brief.',
  'llm.input_messages.1.message.role': 'user',
  'llm.input_messages.1.message.content': 'Weather in Paris?',
  'llm.input_messages.2.message.role': 'assistant',
  'llm.input_messages.2.message.tool_calls.0.tool_call.id': 'call_0',
  'llm.input_messages.2.message.tool_calls.0.tool_call.function.name': 'get_weather',
  'llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments': '{"city":"Lyon"}',
  'llm.input_messages.3.message.role': 'tool',
  'llm.input_messages.3.message.tool_call_id': 'call_0',
  'llm.input_messages.3.message.content': 'sunny',
  'llm.output_messages.0.message.role': 'assistant',
  'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather',
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris"}',
  'llm.output_messages.0.message.tool_calls.1.tool_call.function.name': 'search',
  'llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments': { q: 'paris' },
};

const rows: { name: string; span: Span; expected: FactsSummary }[] = [
  {
    name: 'LLM span: tools, proposals (string and structured args), replays with results',
    span: makeSpan(llm),
    expected: {
      dialect: 'openinference',
      role: 'model',
      model: 'gpt-4o',
      provider: 'openai',
      offered: ['get_weather', 'search'],
      proposals: [
        c('call_1', 'get_weather', '{"city":"Paris"}'),
        c(undefined, 'search', '{"q":"paris"}', 'structured'),
      ],
      replays: [c('call_0', 'get_weather', '{"city":"Lyon"}', 'string', 'sunny')],
      inputTokens: 40,
      outputTokens: 9,
      userMessage: 'Weather in Paris?',
    },
  },
  {
    name: 'LLM span with content parts and llm.system only; more than 10 messages stay in order',
    span: makeSpan({
      'openinference.span.kind': 'llm',
      'llm.system': 'anthropic',
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.contents.0.message_content.type': 'text',
      'llm.input_messages.0.message.contents.0.message_content.text': 'first',
      'llm.input_messages.0.message.contents.1.message_content.type': 'image',
      'llm.input_messages.0.message.contents.1.message_content.image.image.url': 'x',
      ...Object.fromEntries(
        Array.from({ length: 11 }, (_, i) => [
          [`llm.input_messages.${i + 1}.message.role`, 'assistant'],
          [`llm.input_messages.${i + 1}.message.tool_calls.0.tool_call.id`, `id${i}`],
          [`llm.input_messages.${i + 1}.message.tool_calls.0.tool_call.function.name`, 'f'],
        ]).flat(),
      ),
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.contents.0.message_content.type': 'text',
      'llm.output_messages.0.message.contents.0.message_content.text': 'done',
    }),
    expected: {
      dialect: 'openinference',
      role: 'model',
      provider: 'anthropic',
      proposals: [],
      replays: Array.from({ length: 11 }, (_, i) => c(`id${i}`, 'f', undefined)),
      userMessage: 'first',
      outputText: 'done',
    },
  },
  {
    name: 'TOOL span: tool.parameters is the schema, input.value the arguments',
    span: makeSpan({
      'openinference.span.kind': 'TOOL',
      'tool.name': 'get_weather',
      'tool.description': 'Weather',
      'tool.parameters': '{"type":"object","properties":{"city":{"type":"string"}}}',
      'input.value': '{"city":"Paris"}',
      'input.mime_type': 'application/json',
      'output.value': 'sunny',
    }),
    expected: {
      dialect: 'openinference',
      role: 'tool',
      offered: ['get_weather'],
      proposals: [],
      replays: [],
      execution: {
        name: 'get_weather',
        kind: 'string',
        raw: '{"city":"Paris"}',
        status: 'ok',
        result: 'sunny',
        durationMs: 250,
      },
    },
  },
  {
    name: 'TOOL span with a call id, failing',
    span: makeSpan(
      { 'openinference.span.kind': 'TOOL', 'tool.name': 'search', 'tool_call.id': 'call_9', 'input.value': '{}' },
      { statusCode: 2, statusMessage: 'ValueError: bad' },
    ),
    expected: {
      dialect: 'openinference',
      role: 'tool',
      proposals: [],
      replays: [],
      error: 'ValueError: bad',
      execution: {
        name: 'search',
        callId: 'call_9',
        kind: 'string',
        raw: '{}',
        status: 'error',
        errorType: 'ValueError: bad',
        durationMs: 250,
      },
    },
  },
  {
    name: 'AGENT span is an agent',
    span: makeSpan({ 'openinference.span.kind': 'AGENT' }),
    expected: { dialect: 'openinference', role: 'agent', proposals: [], replays: [] },
  },
  {
    name: 'CHAIN span is other',
    span: makeSpan({ 'openinference.span.kind': 'CHAIN', 'input.value': '{"question":"x"}' }),
    expected: { dialect: 'openinference', role: 'other', proposals: [], replays: [] },
  },
];

describe('openinference reader', () => {
  it.each(rows)('$name', ({ span, expected }) => {
    const facts = dialects.normalizeSpan(span);
    expect(facts).toBeDefined();
    expect(summarize(facts!)).toEqual(expected);
  });

  it('keeps the TOOL span schema as parsed JSON', () => {
    const f = dialects.normalizeSpan(
      makeSpan({ 'openinference.span.kind': 'TOOL', 'tool.name': 't', 'tool.parameters': { type: 'object' } }),
    )!;
    expect(f.offered).toEqual([{ name: 't', parameters: { type: 'object' } }]);
  });
});
