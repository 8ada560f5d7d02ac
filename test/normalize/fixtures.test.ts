/** The public fixtures from Arize-ai/openinference: the same conversation in three dialects plus a tool span. */
import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { makeSpan, readFixture } from '../helpers/spans.js';
import { c, summarize, type FactsSummary } from './summary.js';

const dialects = builtinDialects();

const dir = 'public/openinference-genai';
const conversation = {
  role: 'model' as const,
  model: 'gpt-4-0613',
  provider: 'openai',
  proposals: [],
  inputTokens: 97,
  outputTokens: 52,
  userMessage: 'Weather in Paris?',
  outputText: 'The weather in Paris is currently rainy with a temperature of 57°F.',
};

const rows: { file: string; expected: FactsSummary }[] = [
  {
    file: 'openinference_client_span_tool_calls.json',
    expected: {
      ...conversation,
      dialect: 'openinference',
      replays: [c('1234', 'get_weather', '{"location":"Paris"}', 'string', 'rainy, 57°F')],
    },
  },
  {
    file: 'otel_genai_client_span_tool_calls.json',
    expected: {
      ...conversation,
      dialect: 'genai',
      replays: [c('1234', 'get_weather', '{"location":"Paris"}', 'structured', 'rainy, 57°F')],
    },
  },
  {
    file: 'otel_genai_deprecated_client_span_tool_calls.json',
    expected: {
      ...conversation,
      dialect: 'genai-legacy',
      replays: [c('1234', 'get_weather', '{"location":"Paris"}', 'structured', 'rainy, 57°F')],
    },
  },
  {
    file: 'otel_genai_tool_execution_span.json',
    expected: {
      dialect: 'genai',
      role: 'tool',
      proposals: [],
      replays: [],
      execution: {
        name: 'get_weather',
        callId: '1234',
        kind: 'string',
        raw: '{"city": "New York"}',
        status: 'ok',
        result:
          '{"status": "success", "report": "The weather in New York is sunny with a temperature of 25 degrees Celsius (77 degrees Fahrenheit)."}',
        durationMs: 250,
      },
    },
  },
];

describe('public fixtures', () => {
  it.each(rows)('$file', ({ file, expected }) => {
    const facts = dialects.normalizeSpan(makeSpan(readFixture(`${dir}/${file}`)));
    expect(facts).toBeDefined();
    expect(summarize(facts!)).toEqual(expected);
  });
});
