import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import type { Span } from '../../src/model.js';
import { makeSpan } from '../helpers/spans.js';
import { c, summarize, type FactsSummary } from './summary.js';

const dialects = builtinDialects();

const defsFlat = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
  { type: 'function', name: 'get_time' },
];
const inputMessages = [
  { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
  { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
  {
    role: 'assistant',
    parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
  },
  { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'rainy, 57°F' }] },
];
const outputMessages = [
  {
    role: 'assistant',
    parts: [
      { type: 'text', content: 'Checking the time too.' },
      { type: 'tool_call', id: 'call_2', name: 'get_time', arguments: { tz: 'Europe/Paris' } },
    ],
    finish_reason: 'tool_call',
  },
];
const chatAttrs = {
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'gen_ai.request.model': 'gpt-4o',
  'gen_ai.response.model': 'gpt-4o-2024-08-06',
  'gen_ai.usage.input_tokens': 120,
  'gen_ai.usage.output_tokens': 30,
};
const chatExpected: FactsSummary = {
  dialect: 'genai',
  role: 'model',
  model: 'gpt-4o-2024-08-06',
  provider: 'openai',
  offered: ['get_weather', 'get_time'],
  proposals: [c('call_2', 'get_time', '{"tz":"Europe/Paris"}', 'structured')],
  replays: [c('call_1', 'get_weather', '{"city":"Paris"}', 'structured', 'rainy, 57°F')],
  inputTokens: 120,
  outputTokens: 30,
  userMessage: 'Weather in Paris?',
  outputText: 'Checking the time too.',
};

const rows: { name: string; span: Span; expected: FactsSummary }[] = [
  {
    name: 'chat, messages and definitions as JSON strings',
    span: makeSpan({
      ...chatAttrs,
      'gen_ai.tool.definitions': JSON.stringify(defsFlat),
      'gen_ai.input.messages': JSON.stringify(inputMessages),
      'gen_ai.output.messages': JSON.stringify(outputMessages),
    }),
    expected: chatExpected,
  },
  {
    name: 'chat, the same attributes as structured kvlist/array values',
    span: makeSpan({
      ...chatAttrs,
      'gen_ai.tool.definitions': defsFlat,
      'gen_ai.input.messages': inputMessages,
      'gen_ai.output.messages': outputMessages,
    }),
    expected: chatExpected,
  },
  {
    name: 'chat, arguments as the raw string the model wrote; OpenAI-shaped definitions',
    span: makeSpan({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.prompt_tokens': 10,
      'gen_ai.usage.completion_tokens': 5,
      'gen_ai.tool.definitions': JSON.stringify([
        { type: 'function', function: { name: 'search', parameters: { type: 'object' } } },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: [
            { type: 'tool_call', id: 'call_a', name: 'search', arguments: '{"q":"otel"}' },
            { type: 'tool_call', id: 'call_b', name: 'search', arguments: '{"q":' },
          ],
        },
      ]),
    }),
    expected: {
      dialect: 'genai',
      role: 'model',
      model: 'gpt-4o-mini',
      provider: 'openai',
      offered: ['search'],
      proposals: [c('call_a', 'search', '{"q":"otel"}'), c('call_b', 'search', '{"q":')],
      replays: [],
      inputTokens: 10,
      outputTokens: 5,
    },
  },
  {
    name: 'generate_content: calls without ids or arguments; empty definitions list',
    span: makeSpan({
      'gen_ai.operation.name': 'generate_content',
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.tool.definitions': '[]',
      'gen_ai.output.messages': [{ role: 'model', parts: [{ type: 'tool_call', name: 'lookup' }] }],
    }),
    expected: {
      dialect: 'genai',
      role: 'model',
      model: 'gemini-2.5-flash',
      provider: 'gcp.gemini',
      offered: [],
      proposals: [c(undefined, 'lookup', undefined)],
      replays: [],
    },
  },
  {
    name: 'chat with span status ERROR',
    span: makeSpan(
      { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'error.type': 'RateLimitError' },
      { statusCode: 2, statusMessage: '429' },
    ),
    expected: { dialect: 'genai', role: 'model', model: 'gpt-4o', proposals: [], replays: [], error: 'RateLimitError' },
  },
  {
    name: 'execute_tool with arguments and result',
    span: makeSpan(
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'call_1',
        'gen_ai.tool.call.arguments': '{"city":"Paris"}',
        'gen_ai.tool.call.result': { temp: 14 },
      },
      { name: 'execute_tool get_weather', startTimeMs: 1_000, endTimeMs: 1_042 },
    ),
    expected: {
      dialect: 'genai',
      role: 'tool',
      proposals: [],
      replays: [],
      execution: {
        name: 'get_weather',
        callId: 'call_1',
        kind: 'string',
        raw: '{"city":"Paris"}',
        status: 'ok',
        result: '{"temp":14}',
        durationMs: 42,
      },
    },
  },
  {
    name: 'execute_tool failing: error.type wins over the status message',
    span: makeSpan(
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'error.type': 'TimeoutError' },
      { statusCode: 2, statusMessage: 'took too long' },
    ),
    expected: {
      dialect: 'genai',
      role: 'tool',
      proposals: [],
      replays: [],
      error: 'TimeoutError',
      // A timeout is the tool being slow or down: server_error (src/normalize/exec-status.ts).
      execution: {
        name: 'get_weather',
        kind: 'none',
        status: 'server_error',
        errorType: 'TimeoutError',
        durationMs: 250,
      },
    },
  },
  {
    name: 'execute_tool failing with only a status message; name from the span name',
    span: makeSpan(
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.id': 'c9' },
      { name: 'execute_tool fetch', statusCode: 2, statusMessage: 'boom' },
    ),
    expected: {
      dialect: 'genai',
      role: 'tool',
      proposals: [],
      replays: [],
      error: 'boom',
      execution: { name: 'fetch', callId: 'c9', kind: 'none', status: 'error', errorType: 'boom', durationMs: 250 },
    },
  },
  {
    name: 'Pydantic AI "running tool": no operation name, tool_arguments/tool_response',
    span: makeSpan(
      {
        'gen_ai.tool.name': 'roll_die',
        'gen_ai.tool.call.id': 'pyd_ai_1',
        tool_arguments: '{"sides":6}',
        tool_response: '4',
      },
      { name: 'running tool' },
    ),
    expected: {
      dialect: 'genai',
      role: 'tool',
      proposals: [],
      replays: [],
      execution: {
        name: 'roll_die',
        callId: 'pyd_ai_1',
        kind: 'string',
        raw: '{"sides":6}',
        status: 'ok',
        result: '4',
        durationMs: 250,
      },
    },
  },
  {
    name: 'invoke_agent: definitions read, calls in its messages are not its own',
    span: makeSpan({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'weather-bot',
      'gen_ai.tool.definitions': [{ type: 'function', name: 'get_weather', inputSchema: { type: 'object' } }],
      'gen_ai.output.messages': JSON.stringify(outputMessages),
    }),
    expected: {
      dialect: 'genai',
      role: 'agent',
      offered: ['get_weather'],
      proposals: [],
      replays: [],
      outputText: 'Checking the time too.',
    },
  },
  {
    name: 'agent_step (Vercel v7 @ai-sdk/otel) is other',
    span: makeSpan({ 'gen_ai.operation.name': 'agent_step' }),
    expected: { dialect: 'genai', role: 'other', proposals: [], replays: [] },
  },
  {
    name: 'pre-1.27 model span: no operation name',
    span: makeSpan({ 'gen_ai.system': 'anthropic', 'gen_ai.request.model': 'claude-3-5-sonnet' }),
    expected: {
      dialect: 'genai',
      role: 'model',
      model: 'claude-3-5-sonnet',
      provider: 'anthropic',
      proposals: [],
      replays: [],
    },
  },
  {
    name: 'OpenAI message shape inside gen_ai.output.messages',
    span: makeSpan({
      'gen_ai.operation.name': 'chat',
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
      ]),
    }),
    expected: { dialect: 'genai', role: 'model', proposals: [c('call_x', 'f', '{}')], replays: [] },
  },
];

describe('genai reader', () => {
  it.each(rows)('$name', ({ span, expected }) => {
    const facts = dialects.normalizeSpan(span);
    expect(facts).toBeDefined();
    expect(summarize(facts!)).toEqual(expected);
  });

  it('keeps the span identity and timing', () => {
    const f = dialects.normalizeSpan(
      makeSpan({ 'gen_ai.operation.name': 'chat' }, { parentSpanId: 'aaaaaaaaaaaaaaaa' }),
    )!;
    expect(f).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      parentSpanId: 'aaaaaaaaaaaaaaaa',
      service: 'test-service',
      startTimeMs: 1_000,
      endTimeMs: 1_250,
    });
    expect(f.offered).toBeUndefined();
  });

  it('keeps the definition schema, parsing a JSON-string `parameters`', () => {
    const f = dialects.normalizeSpan(
      makeSpan({
        'gen_ai.operation.name': 'chat',
        'gen_ai.tool.definitions': [{ type: 'function', name: 'a', parameters: '{"type":"object","required":["x"]}' }],
      }),
    )!;
    expect(f.offered).toEqual([{ name: 'a', parameters: { type: 'object', required: ['x'] } }]);
  });
});
