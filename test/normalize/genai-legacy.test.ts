import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import type { Span } from '../../src/model.js';
import { makeEvent, makeSpan } from '../helpers/spans.js';
import { c, summarize, type FactsSummary } from './summary.js';

const dialects = builtinDialects();

const choiceBody = {
  index: 0,
  finish_reason: 'tool_calls',
  message: {
    tool_calls: [
      { id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
    ],
  },
};
const v128Attrs = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o' };
const historyEvents = [
  makeEvent('gen_ai.user.message', { body: JSON.stringify({ content: 'Weather in Paris?' }) }),
  makeEvent('gen_ai.assistant.message', {
    body: JSON.stringify({
      tool_calls: [
        { id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Lyon"}' } },
      ],
    }),
  }),
  makeEvent('gen_ai.tool.message', { body: JSON.stringify({ id: 'call_0', content: 'sunny' }) }),
];
const eventsExpected: FactsSummary = {
  dialect: 'genai-legacy',
  role: 'model',
  model: 'gpt-4o',
  provider: 'openai',
  proposals: [c('call_w', 'get_weather', '{"location":"Paris"}')],
  replays: [c('call_0', 'get_weather', '{"location":"Lyon"}', 'string', 'sunny')],
  userMessage: 'Weather in Paris?',
};

const openllmetry = {
  'llm.request.type': 'chat',
  'gen_ai.system': 'openai',
  'gen_ai.request.model': 'gpt-4o',
  'gen_ai.response.model': 'gpt-4o-2024-08-06',
  'gen_ai.usage.prompt_tokens': 50,
  'gen_ai.usage.completion_tokens': 12,
  'llm.request.functions.0.name': 'get_weather',
  'llm.request.functions.0.description': 'Weather',
  'llm.request.functions.0.parameters': '{"type":"object","properties":{"location":{"type":"string"}}}',
  'llm.request.functions.1.name': 'get_time',
  'gen_ai.prompt.0.role': 'user',
  'gen_ai.prompt.0.content': 'Weather in Paris?',
  'gen_ai.prompt.1.role': 'assistant',
  'gen_ai.prompt.1.tool_calls.0.id': 'call_0',
  'gen_ai.prompt.1.tool_calls.0.name': 'get_weather',
  'gen_ai.prompt.1.tool_calls.0.arguments': '{"location":"Lyon"}',
  'gen_ai.prompt.2.role': 'tool',
  'gen_ai.prompt.2.tool_call_id': 'call_0',
  'gen_ai.prompt.2.content': 'sunny',
  'gen_ai.completion.0.role': 'assistant',
  'gen_ai.completion.0.finish_reason': 'tool_calls',
  'gen_ai.completion.0.tool_calls.0.id': 'call_1',
  'gen_ai.completion.0.tool_calls.0.name': 'get_weather',
  'gen_ai.completion.0.tool_calls.0.arguments': '{"location":"Paris"}',
  'gen_ai.completion.0.tool_calls.1.id': 'call_2',
  'gen_ai.completion.0.tool_calls.1.name': 'get_time',
  'gen_ai.completion.0.tool_calls.1.arguments': '{"tz":',
};

const tool = (name: string, input: string, output?: string): Span =>
  makeSpan(
    {
      'traceloop.span.kind': 'tool',
      'traceloop.entity.name': name,
      'traceloop.entity.input': input,
      ...(output === undefined ? {} : { 'traceloop.entity.output': output }),
    },
    { name: `${name}.tool` },
  );
const toolExpected = (
  raw: string | undefined,
  kind: 'string' | 'structured' | 'none',
  result?: string,
): FactsSummary => ({
  dialect: 'genai-legacy',
  role: 'tool',
  proposals: [],
  replays: [],
  execution: {
    name: 'get_weather',
    kind,
    ...(raw === undefined ? {} : { raw }),
    status: 'ok',
    durationMs: 250,
    ...(result === undefined ? {} : { result }),
  },
});

const rows: { name: string; span: Span; expected: FactsSummary }[] = [
  {
    name: 'v1.28 span events, bodies as JSON strings in `body`',
    span: makeSpan(v128Attrs, {
      events: [...historyEvents, makeEvent('gen_ai.choice', { body: JSON.stringify(choiceBody) })],
    }),
    expected: eventsExpected,
  },
  {
    name: 'v1.28 span events, bodies structured (kvlist) in `gen_ai.event.body`',
    span: makeSpan(v128Attrs, {
      events: [
        makeEvent('gen_ai.user.message', { 'gen_ai.event.body': { content: 'Weather in Paris?' } }),
        makeEvent('gen_ai.assistant.message', {
          'gen_ai.event.body': {
            tool_calls: [
              { id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Lyon"}' } },
            ],
          },
        }),
        makeEvent('gen_ai.tool.message', { 'gen_ai.event.body': { id: 'call_0', content: 'sunny' } }),
        makeEvent('gen_ai.choice', { 'gen_ai.event.body': choiceBody }),
      ],
    }),
    expected: eventsExpected,
  },
  {
    name: 'v1.28 gen_ai.choice with the body flattened into event attributes',
    span: makeSpan(v128Attrs, {
      events: [
        makeEvent('gen_ai.choice', {
          'gen_ai.system': 'openai',
          index: 0,
          finish_reason: 'tool_calls',
          message: JSON.stringify(choiceBody.message),
        }),
      ],
    }),
    expected: { ...eventsExpected, replays: [], userMessage: undefined } as FactsSummary,
  },
  {
    name: 'v1.26 gen_ai.content.completion event with the whole JSON',
    span: makeSpan(v128Attrs, {
      events: [
        makeEvent('gen_ai.content.prompt', { 'gen_ai.prompt': JSON.stringify([{ role: 'user', content: 'hi' }]) }),
        makeEvent('gen_ai.content.completion', {
          'gen_ai.completion': JSON.stringify([
            { role: 'assistant', tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{}' } }] },
          ]),
        }),
      ],
    }),
    expected: {
      dialect: 'genai-legacy',
      role: 'model',
      model: 'gpt-4o',
      provider: 'openai',
      proposals: [c('c1', 'f', '{}')],
      replays: [],
      userMessage: 'hi',
    },
  },
  {
    name: 'whole-JSON gen_ai.completion in OpenAI choice shape',
    span: makeSpan({
      'gen_ai.system': 'openai',
      'gen_ai.completion': JSON.stringify({
        choices: [
          {
            message: {
              role: 'assistant',
              content: 'ok',
              tool_calls: [{ id: 'c2', type: 'function', function: { name: 'g', arguments: '{"a":1}' } }],
            },
          },
        ],
      }),
      'gen_ai.prompt': 'Plain prompt text',
    }),
    expected: {
      dialect: 'genai-legacy',
      role: 'model',
      provider: 'openai',
      proposals: [c('c2', 'g', '{"a":1}')],
      replays: [],
      userMessage: 'Plain prompt text',
      outputText: 'ok',
    },
  },
  {
    name: 'OpenLLMetry numbered keys and llm.request.functions',
    span: makeSpan(openllmetry),
    expected: {
      dialect: 'genai-legacy',
      role: 'model',
      model: 'gpt-4o-2024-08-06',
      provider: 'openai',
      offered: ['get_weather', 'get_time'],
      proposals: [c('call_1', 'get_weather', '{"location":"Paris"}'), c('call_2', 'get_time', '{"tz":')],
      replays: [c('call_0', 'get_weather', '{"location":"Lyon"}', 'string', 'sunny')],
      inputTokens: 50,
      outputTokens: 12,
      userMessage: 'Weather in Paris?',
    },
  },
  {
    name: 'operation chat AND numbered completion keys: calls exactly once',
    span: makeSpan({
      'gen_ai.operation.name': 'chat',
      'gen_ai.completion.0.tool_calls.0.id': 'call_1',
      'gen_ai.completion.0.tool_calls.0.name': 'get_weather',
      'gen_ai.completion.0.tool_calls.0.arguments': '{}',
    }),
    expected: { dialect: 'genai-legacy', role: 'model', proposals: [c('call_1', 'get_weather', '{}')], replays: [] },
  },
  {
    name: 'current output messages AND the same calls in numbered keys: current wins, once',
    span: makeSpan({
      'gen_ai.operation.name': 'chat',
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{}' }] },
      ]),
      'gen_ai.completion.0.tool_calls.0.id': 'call_1',
      'gen_ai.completion.0.tool_calls.0.name': 'get_weather',
      'gen_ai.completion.0.tool_calls.0.arguments': '{}',
    }),
    expected: { dialect: 'genai-legacy', role: 'model', proposals: [c('call_1', 'get_weather', '{}')], replays: [] },
  },
  {
    name: 'OpenLLMetry multimodal prompt content (JSON string of parts)',
    span: makeSpan({
      'llm.request.type': 'chat',
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': JSON.stringify([
        { type: 'text', text: 'Describe this' },
        { type: 'image_url', image_url: { url: 'x' } },
      ]),
      'gen_ai.completion.0.function_call.name': 'describe',
      'gen_ai.completion.0.function_call.arguments': '{"detail":"high"}',
    }),
    expected: {
      dialect: 'genai-legacy',
      role: 'model',
      proposals: [c(undefined, 'describe', '{"detail":"high"}')],
      replays: [],
      userMessage: 'Describe this',
    },
  },
  {
    name: 'Traceloop tool span, LangChain {"inputs": {...}}',
    span: tool('get_weather', JSON.stringify({ inputs: { city: 'Paris' }, tags: [], metadata: {} }), '{"temp":14}'),
    expected: toolExpected('{"city":"Paris"}', 'structured', '{"temp":14}'),
  },
  {
    name: 'Traceloop tool span, decorator {"args":[],"kwargs":{...}}',
    span: tool('get_weather', JSON.stringify({ args: [], kwargs: { city: 'Paris' } })),
    expected: toolExpected('{"city":"Paris"}', 'structured'),
  },
  {
    name: 'Traceloop tool span, one positional object',
    span: tool('get_weather', JSON.stringify({ args: [{ city: 'Paris' }], kwargs: {} })),
    expected: toolExpected('{"city":"Paris"}', 'structured'),
  },
  {
    name: 'Traceloop tool span, positional scalars cannot be mapped: no arguments',
    span: tool('get_weather', JSON.stringify({ args: ['Paris'], kwargs: {} })),
    expected: toolExpected(undefined, 'none'),
  },
  {
    name: 'Traceloop tool span, input that is not JSON stays raw',
    span: tool('get_weather', 'Paris, France'),
    expected: toolExpected('Paris, France', 'string'),
  },
  {
    name: 'Traceloop workflow span is an agent',
    span: makeSpan({ 'traceloop.span.kind': 'workflow', 'traceloop.entity.name': 'plan_trip' }),
    expected: { dialect: 'genai-legacy', role: 'agent', proposals: [], replays: [] },
  },
];

describe('genai-legacy reader', () => {
  it.each(rows)('$name', ({ span, expected }) => {
    const facts = dialects.normalizeSpan(span);
    expect(facts).toBeDefined();
    expect(summarize(facts!)).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('parses llm.request.functions parameters from their JSON string', () => {
    const f = dialects.normalizeSpan(makeSpan(openllmetry))!;
    expect(f.offered?.[0]).toEqual({
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { location: { type: 'string' } } },
    });
    expect(f.offered?.[1]).toEqual({ name: 'get_time' });
  });
});
