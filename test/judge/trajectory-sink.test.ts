/**
 * What the judge writes at ingest for a candidate trace costs once per distinct value in a batch: a
 * call's arguments (on the model's proposal and on the tool span) and a trace's user message (on each
 * of its model spans) go through the store's redactor once, the offered tools are turned into their
 * stored form once per definitions list — and the steps stored are exactly the redactor's answers.
 */
import { describe, expect, it } from 'vitest';
import type { SpanFacts, ToolDef } from '../../src/model.js';
import { storeRedactor, type StoreRedactor } from '../../src/redact/stored.js';
import type { JudgeStore, TrajectoryWrite } from '../../src/judge/store.js';
import { TrajectorySink } from '../../src/judge/trajectory.js';

const TRACE = 'ab'.repeat(16);
const ARGS = '{"email":"ada@example.com","password":"hunter2","order_id":"ORD-123456"}';
const USER = 'Where is my order? Mail me at ada@example.com';
const OFFERED: readonly ToolDef[] = Object.freeze([
  { name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object' } },
]);

function model(spanId: string, startTimeMs: number, callId: string): SpanFacts {
  return {
    dialect: 'genai',
    traceId: TRACE,
    spanId,
    parentSpanId: '',
    service: 'agent',
    startTimeMs,
    endTimeMs: startTimeMs + 1,
    role: 'model',
    model: 'gpt-4o',
    offered: OFFERED as ToolDef[],
    proposals: [{ callId, name: 'lookup_order', args: { kind: 'string', raw: ARGS }, index: 0 }],
    replays: [],
    userMessage: USER,
  } as SpanFacts;
}

function tool(spanId: string, startTimeMs: number, callId: string): SpanFacts {
  return {
    dialect: 'genai',
    traceId: TRACE,
    spanId,
    parentSpanId: '',
    service: 'agent',
    startTimeMs,
    endTimeMs: startTimeMs + 1,
    role: 'tool',
    proposals: [],
    replays: [],
    execution: {
      callId,
      name: 'lookup_order',
      args: { kind: 'string', raw: ARGS },
      status: 'ok',
      result: '{"status":"shipped"}',
      durationMs: 1,
    },
  } as SpanFacts;
}

/** The store's own redactor at `pii`, counting what it is asked. */
function counting(): { r: StoreRedactor; asked: string[] } {
  const inner = storeRedactor('pii');
  const asked: string[] = [];
  return {
    asked,
    r: {
      level: inner.level,
      json: (v) => (asked.push(v), inner.json(v)),
      text: (v) => (asked.push(v), inner.text(v)),
    },
  };
}

describe('TrajectorySink', () => {
  it('redacts each distinct value of a batch once and stores the redactor’s answers', () => {
    const { r, asked } = counting();
    let writes: readonly TrajectoryWrite[] = [];
    const store = {
      trajectories: { ingestExtension: (w: readonly TrajectoryWrite[]) => ((writes = w), () => {}) },
    } as unknown as JudgeStore;
    const sink = new TrajectorySink({
      project: 'default',
      policy: { sampleRate: 1, serviceRates: {}, feedbackRate: 1 },
      store,
      now: () => 5000,
      redactor: r,
    });
    const facts = [model('01', 1000, 'c1'), tool('02', 1002, 'c1'), model('03', 1004, 'c2'), tool('04', 1006, 'c2')];
    sink.collect({ source: 'otlp', facts, calls: [] });

    expect(asked.filter((v) => v === ARGS)).toHaveLength(1);
    expect(asked.filter((v) => v === USER)).toHaveLength(1);
    const steps = writes[0]!.steps.map((s) => JSON.parse(s.payload));
    expect(steps).toHaveLength(4);
    const masked = storeRedactor('pii').json(ARGS);
    expect(masked.ok && masked.value).not.toContain('hunter2');
    for (const s of steps) {
      if (s.kind === 'model') {
        expect(s.calls[0].arguments).toBe(masked.ok ? masked.value : undefined);
        expect(s.userMessage).toBe((storeRedactor('pii').text(USER) as { value: string }).value);
        expect(s.offered).toEqual([
          { name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object' } },
        ]);
      } else expect(s.arguments).toBe(masked.ok ? masked.value : undefined);
    }
  });
});
