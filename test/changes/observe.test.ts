/**
 * observeBatch attributing calls to the span that offered their tools (src/changes/observe.ts):
 * found by span id and trace, so one span id in two traces counts each trace's calls under its own
 * definitions, and a span sent twice counts under the later copy; a call of no span of the batch is
 * not counted.
 */
import { describe, expect, it } from 'vitest';
import { observeBatch } from '../../src/changes/observe.js';
import { DEFAULT_OBSERVE_LIMITS } from '../../src/changes/sink.js';
import type { CheckedCall, SpanFacts, ToolDef } from '../../src/model.js';
import { definitionVersion } from '../../src/tools/definition-hash.js';

const v1: ToolDef = { name: 'refund', parameters: { type: 'object' } };
const v2: ToolDef = { name: 'refund', parameters: { type: 'object', required: ['id'] } };

function span(traceId: string, spanId: string, offered: ToolDef[], role: SpanFacts['role'] = 'model'): SpanFacts {
  return {
    dialect: 'genai',
    traceId,
    spanId,
    parentSpanId: '',
    service: 'shop',
    startTimeMs: 60_000,
    endTimeMs: 60_010,
    role,
    model: 'gpt-4o',
    provider: 'openai',
    offered,
    proposals: [],
    replays: [],
  };
}
const call = (traceId: string, spanId: string): CheckedCall => ({
  source: 'otlp',
  traceId,
  spanId,
  service: 'shop',
  model: 'gpt-4o',
  name: 'refund',
  args: { kind: 'none' },
  timeMs: 60_000,
  outcome: { outcome: 'valid' },
  fromExecution: false,
});
const callsOf = (facts: SpanFacts[], calls: CheckedCall[]) =>
  Object.fromEntries(observeBatch(facts, calls, DEFAULT_OBSERVE_LIMITS).versions.map((v) => [v.version, v.calls]));

describe('observeBatch attributes calls', () => {
  it('to the span of their own trace when two traces share a span id', () => {
    const facts = [span('t1', 's1', [v1]), span('t0', 'x', [], 'tool'), span('t2', 's1', [v2])];
    const calls = [call('t1', 's1'), call('t2', 's1'), call('t2', 's1'), call('t1', 's1'), call('t1', 's1')];
    expect(callsOf(facts, calls)).toEqual({ [definitionVersion(v1)]: 3, [definitionVersion(v2)]: 2 });
  });

  it('to the later copy of a span sent twice', () => {
    const facts = [span('t1', 's1', [v1]), span('t1', 's2', [v1]), span('t1', 's1', [v2])];
    expect(callsOf(facts, [call('t1', 's1'), call('t1', 's2')])).toEqual({
      [definitionVersion(v1)]: 1,
      [definitionVersion(v2)]: 1,
    });
  });

  it('to no version when no span of the batch is theirs', () => {
    const facts = [span('t1', 's1', [v1])];
    expect(callsOf(facts, [call('t9', 's1'), call('t1', 's9')])).toEqual({ [definitionVersion(v1)]: 0 });
  });
});
