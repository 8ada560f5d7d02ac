/** A model span's facts and its counted calls, as the changes tests write them through a store. */
import type { CheckedCall, OutcomeName, SpanFacts, ToolDef } from '../../src/model.js';

let span = 0;
export function modelSpan(
  t: number,
  offered: ToolDef[],
  model = 'gpt-4o',
  provider = 'openai',
  service = 'shop',
): SpanFacts {
  span++;
  return {
    dialect: 'genai',
    traceId: `t${span}`,
    spanId: `s${span}`,
    parentSpanId: '',
    service,
    startTimeMs: t,
    endTimeMs: t + 10,
    role: 'model',
    model,
    provider,
    offered,
    proposals: [],
    replays: [],
  };
}

export const callOf = (f: SpanFacts, name: string, outcome: OutcomeName = 'valid'): CheckedCall => ({
  source: 'otlp',
  traceId: f.traceId,
  spanId: f.spanId,
  service: f.service,
  model: f.model ?? '',
  name,
  args: { kind: 'none' },
  timeMs: f.startTimeMs,
  outcome: outcome === 'valid' ? { outcome } : ({ outcome, errors: [] } as never),
  fromExecution: false,
});
