/** The observations the sync tests put into the fake Langfuse, and what toolwatch must count from them. */
import type { StoredObservation } from '../../fakes/langfuse.js';
import { anthropic, langchain, openaiChat, responsesApi } from '../../normalize/langfuse-shapes.js';

const iso = (ms: number) => new Date(ms).toISOString();

function obs(
  id: string,
  traceId: string,
  type: string,
  startMs: number,
  extra: Partial<StoredObservation> = {},
): StoredObservation {
  return {
    id,
    traceId,
    type,
    name: type.toLowerCase(),
    startTime: iso(startMs),
    endTime: iso(startMs + 500),
    ...extra,
  };
}

/**
 * Traces in every shape, spread from t0 over ~12 minutes, with SPAN/EVENT filler so windows take
 * several pages. Counted once each: A valid (+ its TOOL and a replaying generation), B SchemaMismatch
 * (+ failing TOOL, id in an input envelope), C valid (Anthropic), D InvalidJson (LangChain),
 * E UnknownName, F a TOOL alone (no proposal: counted after the grace period as unvalidated).
 */
export function seedTraces(t0: number): StoredObservation[] {
  const m = 60_000;
  const out: StoredObservation[] = [
    obs('A0', 'trA', 'SPAN', t0),
    obs('A1', 'trA', 'GENERATION', t0 + 1000, {
      model: 'gpt-4o',
      usageDetails: { input: 10, output: 5 },
      ...openaiChat([{ id: 'call_a', name: 'get_weather', args: '{"city":"Paris"}' }]),
    }),
    obs('A2', 'trA', 'TOOL', t0 + 2000, {
      name: 'get_weather',
      input: { city: 'Paris' },
      output: 'sunny',
      metadata: { tool_call_id: 'call_a' },
    }),
    obs('A3', 'trA', 'GENERATION', t0 + 3000, {
      model: 'gpt-4o',
      input: {
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_a', content: 'sunny' },
        ],
      },
      output: { role: 'assistant', content: 'Sunny.' },
    }),
    obs('B1', 'trB', 'GENERATION', t0 + 2 * m, {
      model: 'gpt-4.1',
      ...responsesApi([{ id: 'call_b', name: 'get_weather', args: '{"city":5}' }]),
    }),
    obs('B2', 'trB', 'TOOL', t0 + 2 * m + 1000, {
      name: 'get_weather',
      input: { tool_call_id: 'call_b', arguments: { city: 5 } },
      level: 'ERROR',
      statusMessage: 'TypeError',
    }),
    obs('C1', 'trC', 'GENERATION', t0 + 4 * m, {
      model: 'claude-sonnet',
      ...anthropic([{ id: 'toolu_c', name: 'get_weather', input: { city: 'Oslo' } }]),
    }),
    obs('D1', 'trD', 'GENERATION', t0 + 6 * m, {
      model: 'gpt-4o',
      ...langchain([{ id: 'call_d', name: 'get_weather', args: '{"city":' }]),
    }),
    obs('E1', 'trE', 'GENERATION', t0 + 8 * m, {
      model: 'gpt-4o',
      ...openaiChat([{ id: 'call_e', name: 'book_flight', args: '{"to":"NYC"}' }]),
    }),
    obs('F1', 'trF', 'TOOL', t0 + 10 * m, { name: 'lookup', input: { q: 'x' }, output: 'y' }),
  ];
  for (let i = 0; i < 14; i++) out.push(obs(`S${i}`, `trS${i % 3}`, i % 2 ? 'SPAN' : 'EVENT', t0 + i * 50_000 + 7));
  return out;
}

/** A generation arriving late: its start time lies inside the overlap of a window already synced. */
export function lateGeneration(startMs: number): StoredObservation {
  return obs('G1', 'trG', 'GENERATION', startMs, {
    model: 'gpt-4o',
    ...openaiChat([{ id: 'call_g', name: 'get_weather', args: '{"city":"Lyon"}' }]),
  });
}

export const EXPECTED = { valid: 2, SchemaMismatch: 1, InvalidJson: 1, UnknownName: 1, unvalidated: 1 } as const;
