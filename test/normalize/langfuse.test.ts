/** The Langfuse observation normalizer, table-driven over every shape (README: Langfuse, What is read). */
import { describe, expect, it } from 'vitest';
import { observationToFacts, type LangfuseObservation } from '../../src/normalize/langfuse.js';
import type { ExecutionStatus } from '../../src/model.js';
import { anthropic, langchain, openaiChat, responsesApi } from './langfuse-shapes.js';

const base = { traceId: 'trace-1', startTime: '2026-01-01T00:00:00.000Z', endTime: '2026-01-01T00:00:01.500Z' };
const gen = (
  id: string,
  io: { input: unknown; output: unknown },
  extra: Partial<LangfuseObservation> = {},
): LangfuseObservation => ({
  ...base,
  id,
  type: 'GENERATION',
  name: 'chat',
  model: 'gpt-4o',
  ...io,
  ...extra,
});
/** As v2 sends it: input/output as raw JSON strings. */
const v2 = (o: LangfuseObservation): LangfuseObservation => ({
  ...o,
  input: JSON.stringify(o.input),
  output: JSON.stringify(o.output),
});

type Want = { calls: [string | undefined, string, string][]; offered?: string[]; user?: string; replays?: number };
const argsRaw = (a: { kind: string; raw?: string }) => (a.kind === 'none' ? '' : a.raw!);

const cases: [string, LangfuseObservation, Want][] = [
  [
    'OpenAI chat (parsed)',
    gen('g1', openaiChat([{ id: 'call_1', name: 'get_weather', args: '{"city":"Paris"}' }])),
    { calls: [['call_1', 'get_weather', '{"city":"Paris"}']], offered: ['get_weather'], user: 'Weather in Paris?' },
  ],
  [
    'OpenAI chat (raw strings, v2)',
    v2(gen('g2', openaiChat([{ id: 'call_2', name: 'get_weather', args: '{"city":' }]))),
    { calls: [['call_2', 'get_weather', '{"city":']], offered: ['get_weather'], user: 'Weather in Paris?' },
  ],
  [
    'OpenAI chat, two parallel calls',
    v2(
      gen(
        'g3',
        openaiChat([
          { id: 'a', name: 'get_weather', args: '{"city":"A"}' },
          { id: 'b', name: 'get_time', args: '{}' },
        ]),
      ),
    ),
    {
      calls: [
        ['a', 'get_weather', '{"city":"A"}'],
        ['b', 'get_time', '{}'],
      ],
      offered: ['get_weather'],
    },
  ],
  [
    'Responses API function_call items',
    v2(gen('g4', responsesApi([{ id: 'call_r', name: 'get_weather', args: '{"city":"Rome"}' }]))),
    { calls: [['call_r', 'get_weather', '{"city":"Rome"}']], offered: ['get_weather'], user: 'Weather in Rome?' },
  ],
  [
    'Anthropic tool_use blocks',
    v2(gen('g5', anthropic([{ id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }]))),
    { calls: [['toolu_1', 'get_weather', '{"city":"Oslo"}']], offered: ['get_weather'], user: 'Weather in Oslo?' },
  ],
  [
    'Anthropic content blocks as a bare list',
    gen('g6', {
      input: 'hi',
      output: [{ type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'X' } }],
    }),
    { calls: [['toolu_2', 'get_weather', '{"city":"X"}']], user: 'hi' },
  ],
  [
    'LangChain additional_kwargs (read once)',
    v2(gen('g7', langchain([{ id: 'lc_1', name: 'get_weather', args: '{"city":"Lima"}' }]))),
    { calls: [['lc_1', 'get_weather', '{"city":"Lima"}']], offered: ['get_weather'], user: 'Weather in Lima?' },
  ],
  [
    'LangChain parsed tool_calls only',
    gen('g8', {
      input: [{ type: 'human', content: 'q' }],
      output: { type: 'ai', content: '', tool_calls: [{ id: 'lc_2', name: 'get_weather', args: { city: 'Q' } }] },
    }),
    { calls: [['lc_2', 'get_weather', '{"city":"Q"}']], user: 'q' },
  ],
  [
    'LangChain parsed tool_calls and the invalid_tool_calls that did not parse',
    gen('g8b', {
      input: [{ type: 'human', content: 'q' }],
      output: {
        type: 'ai',
        content: '',
        tool_calls: [{ id: 'lc_3', name: 'get_weather', args: { city: 'Q' } }],
        invalid_tool_calls: [
          { type: 'invalid_tool_call', id: 'lc_4', name: 'get_weather', args: '{"city": Q', error: 'not JSON' },
        ],
      },
    }),
    {
      calls: [
        ['lc_3', 'get_weather', '{"city":"Q"}'],
        ['lc_4', 'get_weather', '{"city": Q'],
      ],
      user: 'q',
    },
  ],
  [
    'history replays are not proposals',
    v2(
      gen('g9', {
        input: {
          messages: [
            { role: 'user', content: 'w?' },
            {
              role: 'assistant',
              tool_calls: [
                { id: 'old', type: 'function', function: { name: 'get_weather', arguments: '{"city":"P"}' } },
              ],
            },
            { role: 'tool', tool_call_id: 'old', content: 'sunny' },
          ],
          tools: [],
        },
        output: { role: 'assistant', content: 'It is sunny.' },
      }),
    ),
    { calls: [], offered: [], user: 'w?', replays: 1 },
  ],
  [
    'plain text in and out',
    v2(gen('g10', { input: 'just text', output: 'an answer' })),
    { calls: [], user: 'just text' },
  ],
  [
    'definitions carried as tool messages (Python LangChain callback)',
    v2(
      gen('g11', {
        input: [
          { role: 'user', content: 'Search the web.' },
          {
            role: 'tool',
            content: {
              type: 'function',
              function: {
                name: 'Web-Search',
                description: 'd',
                parameters: { type: 'object', properties: { query: { type: 'string' } } },
              },
            },
          },
        ],
        output: {
          role: 'assistant',
          content: '',
          additional_kwargs: {
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Web-Search', arguments: '{"query":"x"}' } }],
          },
        },
      }),
    ),
    { calls: [['c1', 'Web-Search', '{"query":"x"}']], offered: ['Web-Search'], user: 'Search the web.' },
  ],
  [
    'JS LangChain callback input {messages, tools}',
    v2(
      gen('g12', {
        input: {
          messages: [{ role: 'user', content: 'q' }],
          tools: [{ type: 'function', function: { name: 'get_weather', parameters: {} } }],
        },
        output: { role: 'assistant', content: 'hi' },
      }),
    ),
    { calls: [], offered: ['get_weather'], user: 'q' },
  ],
];

describe('observationToFacts: generations', () => {
  it.each(cases)('%s', (_name, obs, want) => {
    const f = observationToFacts(obs, { service: 'svc' })!;
    expect(f.role).toBe('model');
    expect(f.traceId).toBe('trace-1');
    expect(f.spanId).toBe(obs.id);
    expect(f.model).toBe('gpt-4o');
    expect(f.proposals.map((p) => [p.callId, p.name, argsRaw(p.args)])).toEqual(want.calls);
    expect(f.offered?.map((d) => d.name)).toEqual(want.offered);
    if (want.user) expect(f.userMessage).toBe(want.user);
    expect(f.replays.length).toBe(want.replays ?? 0);
  });

  it('reads model, usage, times, error level and the service from metadata', () => {
    const f = observationToFacts(
      gen('g', openaiChat([]), {
        level: 'ERROR',
        statusMessage: 'rate limited upstream',
        usageDetails: { input: 12, output: 3, total: 15 },
        metadata: { resourceAttributes: { 'service.name': 'agent-a' } },
      }),
      { service: 'svc' },
    )!;
    expect(f).toMatchObject({
      error: 'rate limited upstream',
      inputTokens: 12,
      outputTokens: 3,
      service: 'agent-a',
      startTimeMs: Date.parse(base.startTime),
      endTimeMs: Date.parse(base.endTime),
    });
    const v1 = observationToFacts(gen('h', openaiChat([]), { usage: { input: 7, output: 2 } }), { service: 'svc' })!;
    expect(v1).toMatchObject({ inputTokens: 7, outputTokens: 2, service: 'svc' });
  });
});

describe('observationToFacts: tools and others', () => {
  const tool = (extra: Partial<LangfuseObservation>): LangfuseObservation => ({
    ...base,
    id: 't',
    type: 'TOOL',
    name: 'get_weather',
    ...extra,
  });
  const cases2: [
    string,
    LangfuseObservation,
    { callId?: string; args: string; status: ExecutionStatus; result?: string; errorType?: string },
  ][] = [
    [
      'call id in metadata, raw input string',
      tool({ input: '{"city":"Paris"}', output: '"sunny"', metadata: { tool_call_id: 'call_1' } }),
      { callId: 'call_1', args: '{"city":"Paris"}', status: 'ok', result: 'sunny' },
    ],
    [
      'call id in an input envelope',
      tool({ input: { tool_call_id: 'call_2', arguments: { city: 'Rome' } }, output: { temp: 20 } }),
      { callId: 'call_2', args: '{"city":"Rome"}', status: 'ok', result: '{"temp":20}' },
    ],
    [
      'no call id, level ERROR',
      tool({ input: { city: 'X' }, level: 'ERROR', statusMessage: 'Timeout' }),
      { args: '{"city":"X"}', status: 'server_error', errorType: 'Timeout' },
    ],
    [
      'level ERROR, the downstream refused it',
      tool({ input: { city: 'X' }, level: 'ERROR', statusMessage: 'Request failed with status code 422' }),
      { args: '{"city":"X"}', status: 'client_error', errorType: 'Request failed with status code 422' },
    ],
    [
      'level ERROR, nothing says how',
      tool({ input: { city: 'X' }, level: 'ERROR', statusMessage: 'boom' }),
      { args: '{"city":"X"}', status: 'error', errorType: 'boom' },
    ],
    [
      'double-encoded string arguments stay the string',
      tool({ input: JSON.stringify('{"city":"Y"}') }),
      { args: '{"city":"Y"}', status: 'ok' },
    ],
  ];
  it.each(cases2)('TOOL: %s', (_n, obs, want) => {
    const f = observationToFacts(obs, { service: 'svc' })!;
    expect(f.role).toBe('tool');
    const e = f.execution!;
    expect([e.callId, e.name, argsRaw(e.args), e.status, e.result, e.errorType]).toEqual([
      want.callId,
      'get_weather',
      want.args,
      want.status,
      want.result,
      want.errorType,
    ]);
    expect(e.durationMs).toBe(1500);
  });

  it('SPAN and EVENT observations carry nothing; AGENT keeps the user message; a missing traceId falls back to the id', () => {
    expect(observationToFacts({ ...base, id: 's', type: 'SPAN' }, { service: 'svc' })).toBeUndefined();
    expect(observationToFacts({ ...base, id: 'e', type: 'EVENT' }, { service: 'svc' })).toBeUndefined();
    const a = observationToFacts(
      {
        ...base,
        id: 'a',
        type: 'AGENT',
        input: JSON.stringify({ messages: [{ role: 'user', content: 'plan a trip' }] }),
      },
      { service: 'svc' },
    )!;
    expect(a).toMatchObject({ role: 'agent', userMessage: 'plan a trip', proposals: [] });
    expect(
      observationToFacts({ ...base, traceId: null, id: 'lone', type: 'TOOL', name: 'x' }, { service: 'svc' })!.traceId,
    ).toBe('lone');
  });

  it('hostile input never throws', () => {
    for (const input of [
      '{',
      'null',
      '[]',
      JSON.stringify({ messages: 5, tools: 'nope' }),
      JSON.stringify({ tools: [{}] }),
    ]) {
      for (const output of [
        '{',
        '[[[]]]',
        JSON.stringify({ tool_calls: [null, 1, { function: 7 }] }),
        JSON.stringify([{ type: 'function_call' }]),
      ]) {
        expect(() =>
          observationToFacts({ ...base, id: 'x', type: 'GENERATION', input, output }, { service: 's' }),
        ).not.toThrow();
      }
    }
  });
});
