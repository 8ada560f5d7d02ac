import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import type { Span } from '../../src/model.js';
import { makeSpan } from '../helpers/spans.js';
import { c, summarize, type FactsSummary } from './summary.js';

const dialects = builtinDialects();

const tools = [
  JSON.stringify({
    type: 'function',
    name: 'weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  }),
  JSON.stringify({ type: 'function', name: 'time', inputSchema: { type: 'object' } }),
];
const doGenerate = (extra: Record<string, unknown>): Span =>
  makeSpan(
    {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.model.id': 'gpt-4o',
      'ai.model.provider': 'openai.chat',
      'gen_ai.system': 'openai.chat',
      'gen_ai.request.model': 'gpt-4o',
      ...extra,
    },
    { name: 'ai.generateText.doGenerate', scope: 'ai' },
  );
const base = { dialect: 'vercel-ai', role: 'model' as const, model: 'gpt-4o', provider: 'openai.chat', replays: [] };

const rows: { name: string; span: Span; expected: FactsSummary }[] = [
  {
    name: 'v5 doGenerate: input objects, inputSchema tools, inputTokens',
    span: doGenerate({
      'ai.prompt.tools': tools,
      'ai.response.toolCalls': JSON.stringify([
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: { city: 'Paris' } },
        { type: 'tool-call', toolCallId: 'call_2', toolName: 'time', input: '{"tz":"UTC"}' },
      ]),
      'ai.usage.inputTokens': 21,
      'ai.usage.outputTokens': 7,
      'ai.prompt.messages': JSON.stringify([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      ]),
    }),
    expected: {
      ...base,
      offered: ['weather', 'time'],
      proposals: [c('call_1', 'weather', '{"city":"Paris"}', 'structured'), c('call_2', 'time', '{"tz":"UTC"}')],
      inputTokens: 21,
      outputTokens: 7,
      userMessage: 'Weather in Paris?',
    },
  },
  {
    name: 'v7 legacy: no `type`, invalid model JSON kept as the raw input string',
    span: doGenerate({
      'ai.prompt.tools': tools,
      'ai.response.toolCalls': JSON.stringify([{ toolCallId: 'call_3', toolName: 'weather', input: '{"city": Par' }]),
    }),
    expected: { ...base, offered: ['weather', 'time'], proposals: [c('call_3', 'weather', '{"city": Par')] },
  },
  {
    name: 'v4: args string, parameters tools, promptTokens/completionTokens; doStream',
    span: makeSpan(
      {
        'ai.operationId': 'ai.streamText.doStream',
        'ai.model.id': 'claude-3-5-sonnet',
        'ai.model.provider': 'anthropic.messages',
        'ai.prompt.tools': [JSON.stringify({ type: 'function', name: 'weather', parameters: { type: 'object' } })],
        'ai.response.toolCalls': JSON.stringify([
          { toolCallId: 'toolu_1', toolName: 'weather', args: '{"city":"Paris"}' },
        ]),
        'ai.usage.promptTokens': 5,
        'ai.usage.completionTokens': 3,
      },
      { name: 'ai.streamText.doStream' },
    ),
    expected: {
      dialect: 'vercel-ai',
      role: 'model',
      model: 'claude-3-5-sonnet',
      provider: 'anthropic.messages',
      offered: ['weather'],
      proposals: [c('toolu_1', 'weather', '{"city":"Paris"}')],
      replays: [],
      inputTokens: 5,
      outputTokens: 3,
    },
  },
  {
    name: 'toolCalls as a structured array; history replays with tool-result output',
    span: doGenerate({
      'ai.response.toolCalls': [{ type: 'tool-call', toolCallId: 'call_5', toolName: 'time', input: {} }],
      'ai.prompt.messages': [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'call_4', toolName: 'weather', input: { city: 'Lyon' } }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call_4',
              toolName: 'weather',
              output: { type: 'json', value: { temp: 20 } },
            },
          ],
        },
      ],
    }),
    expected: {
      ...base,
      proposals: [c('call_5', 'time', '{}', 'structured')],
      replays: [c('call_4', 'weather', '{"city":"Lyon"}', 'structured', '{"temp":20}')],
      userMessage: 'hi',
    },
  },
  {
    name: 'outer ai.generateText: the step summary yields NO proposals',
    span: makeSpan(
      {
        'ai.operationId': 'ai.generateText',
        'ai.model.id': 'gpt-4o',
        'ai.model.provider': 'openai.chat',
        'ai.prompt': JSON.stringify({ prompt: 'Weather in Paris?' }),
        'ai.response.toolCalls': JSON.stringify([
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: { city: 'Paris' } },
        ]),
        'ai.response.text': 'Rainy.',
      },
      { name: 'ai.generateText' },
    ),
    expected: {
      dialect: 'vercel-ai',
      role: 'agent',
      model: 'gpt-4o',
      provider: 'openai.chat',
      proposals: [],
      replays: [],
      userMessage: 'Weather in Paris?',
      outputText: 'Rainy.',
    },
  },
  {
    name: 'outer ai.streamText matched by span name and scope alone',
    span: makeSpan(
      { 'ai.response.toolCalls': JSON.stringify([{ toolCallId: 'x', toolName: 'weather', input: {} }]) },
      { name: 'ai.streamText', scope: 'ai' },
    ),
    expected: { dialect: 'vercel-ai', role: 'agent', proposals: [], replays: [] },
  },
  {
    name: 'ai.toolCall span',
    span: makeSpan(
      {
        'ai.operationId': 'ai.toolCall',
        'ai.toolCall.name': 'weather',
        'ai.toolCall.id': 'call_1',
        'ai.toolCall.args': '{"city":"Paris"}',
        'ai.toolCall.result': '{"temp":14}',
      },
      { name: 'ai.toolCall', startTimeMs: 5, endTimeMs: 20 },
    ),
    expected: {
      dialect: 'vercel-ai',
      role: 'tool',
      proposals: [],
      replays: [],
      execution: {
        name: 'weather',
        callId: 'call_1',
        kind: 'string',
        raw: '{"city":"Paris"}',
        status: 'ok',
        result: '{"temp":14}',
        durationMs: 15,
      },
    },
  },
  {
    name: 'ai.toolCall span failing',
    span: makeSpan(
      { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'weather', 'ai.toolCall.id': 'call_1' },
      { name: 'ai.toolCall', statusCode: 2, statusMessage: 'fetch failed' },
    ),
    expected: {
      dialect: 'vercel-ai',
      role: 'tool',
      proposals: [],
      replays: [],
      error: 'fetch failed',
      execution: {
        name: 'weather',
        callId: 'call_1',
        kind: 'none',
        status: 'error',
        errorType: 'fetch failed',
        durationMs: 250,
      },
    },
  },
  {
    name: 'embed spans are other',
    span: makeSpan({ 'ai.operationId': 'ai.embedMany.doEmbed' }, { name: 'ai.embedMany.doEmbed' }),
    expected: { dialect: 'vercel-ai', role: 'other', proposals: [], replays: [] },
  },
];

describe('vercel-ai reader', () => {
  it.each(rows)('$name', ({ span, expected }) => {
    const facts = dialects.normalizeSpan(span);
    expect(facts).toBeDefined();
    expect(summarize(facts!)).toEqual(expected);
  });

  it('keeps inputSchema as the parameters', () => {
    const f = dialects.normalizeSpan(doGenerate({ 'ai.prompt.tools': tools }))!;
    expect(f.offered?.[0]?.parameters).toEqual({ type: 'object', properties: { city: { type: 'string' } } });
  });
});
