/**
 * What the judge writes at ingest for a candidate trace costs once per distinct value in a batch: a
 * call's arguments (on the model's proposal and on the tool span) and a trace's user message (on each
 * of its model spans) go through the store's redactor once, the offered tools are turned into their
 * stored form once per definitions list — and the steps stored are exactly the redactor's answers;
 * a step's payload is the JSON of the whole step, byte for byte; at the defaults a fifth of traces
 * are candidates.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { SpanFacts, ToolDef } from '../../src/model.js';
import { storeRedactor, type StoreRedactor } from '../../src/redact/stored.js';
import type { JudgeStore, TrajectoryWrite } from '../../src/judge/store.js';
import { type OfferedTools, withOffered } from '../../src/judge/steps.js';
import { TrajectorySink } from '../../src/judge/trajectory.js';
import { maxProbability, samplePosition } from '../../src/judge/sampler.js';
import { policyOf } from '../../src/judge/service.js';

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
    let offered: readonly OfferedTools[] = [];
    const store = {
      trajectories: {
        ingestExtension: (w: readonly TrajectoryWrite[], o: readonly OfferedTools[]) => (
          (writes = w), (offered = o), () => {}
        ),
      },
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
    // The offered list once for the batch, both model steps naming it.
    expect(offered).toHaveLength(1);
    expect(JSON.parse(offered[0]!.json)).toEqual([
      { name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object' } },
    ]);
    expect(writes[0]!.steps.map((s) => s.offered)).toEqual([offered[0]!.ref, undefined, offered[0]!.ref, undefined]);
    const steps = writes[0]!.steps.map((s) => JSON.parse(s.payload));
    expect(steps).toHaveLength(4);
    const masked = storeRedactor('pii').json(ARGS);
    expect(masked.ok && masked.value).not.toContain('hunter2');
    for (const s of steps) {
      if (s.kind === 'model') {
        expect(s.calls[0].arguments).toBe(masked.ok ? masked.value : undefined);
        expect(s.userMessage).toBe((storeRedactor('pii').text(USER) as { value: string }).value);
        expect(s.offered).toBeUndefined();
      } else expect(s.arguments).toBe(masked.ok ? masked.value : undefined);
    }
  });
});

describe('a stored step’s payload', () => {
  /**
   * The step as one object, in the order its fields are set (toStep, then omitted, then seq): its
   * JSON is the payload, and with its offered tools put back (withOffered, as a trajectory is read)
   * the JSON of the whole step, the tools before `omitted` and `seq`.
   */
  function sinkPayloads(facts: SpanFacts[], r: StoreRedactor): string[] {
    let writes: readonly TrajectoryWrite[] = [];
    let offered: readonly OfferedTools[] = [];
    const store = {
      trajectories: {
        ingestExtension: (w: readonly TrajectoryWrite[], o: readonly OfferedTools[]) => (
          (writes = w), (offered = o), () => {}
        ),
      },
    } as unknown as JudgeStore;
    const sink = new TrajectorySink({
      project: 'default',
      policy: { sampleRate: 1, serviceRates: {} },
      store,
      now: () => 7,
      redactor: r,
    });
    sink.collect({ source: 'otlp', facts, calls: [] });
    const lists = new Map(offered.map((o) => [o.ref, o.json]));
    return writes[0]!.steps.map((s) => {
      if (s.offered === undefined) return s.payload;
      expect(s.payload).not.toContain('"offered"');
      return JSON.stringify(withOffered(s.payload, JSON.parse(lists.get(s.offered)!)));
    });
  }

  const rich = (): SpanFacts[] => {
    const m = model('01', 1000.5, 'c1');
    Object.assign(m, { outputText: 'Shipped.', error: 'boom', inputTokens: 12, outputTokens: 3 });
    const agent = { ...tool('00', 999, 'x'), role: 'agent', execution: undefined } as SpanFacts;
    const t = tool('02', 1002.25, 'c1');
    t.execution!.status = 'server_error';
    t.execution!.errorType = 'Timeout';
    return [agent, m, t];
  };

  it('is the JSON of the whole step, its offered tools, omitted fields and arrival order in their places', () => {
    // A redactor that cannot handle the model's answer: it is left out, and `omitted` says so.
    const inner = storeRedactor('secrets');
    const r: StoreRedactor = {
      level: 'secrets',
      json: (v) => inner.json(v),
      text: (v) => (v === 'Shipped.' ? { ok: false, reason: 'nope' } : inner.text(v)),
    };
    const args = (inner.json(ARGS) as { value: string }).value;
    expect(args).not.toBe(ARGS);
    const [modelPayload, toolPayload] = sinkPayloads(rich(), r);
    // Byte for byte, so the order of the keys is checked too; the agent span is no step and takes no seq.
    expect(modelPayload).toBe(
      JSON.stringify({
        kind: 'model',
        spanId: '01',
        startMs: 1000.5,
        endMs: 1001.5,
        calls: [{ name: 'lookup_order', callId: 'c1', arguments: args }],
        model: 'gpt-4o',
        userMessage: USER,
        error: 'boom',
        inputTokens: 12,
        outputTokens: 3,
        offered: [{ name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object' } }],
        omitted: 'outputText: nope',
        seq: 7000,
      }),
    );
    expect(toolPayload).toBe(
      JSON.stringify({
        kind: 'tool',
        spanId: '02',
        startMs: 1002.25,
        endMs: 1003.25,
        name: 'lookup_order',
        status: 'error',
        callId: 'c1',
        arguments: args,
        errorType: 'server_error: Timeout',
        result: '{"status":"shipped"}',
        seq: 7001,
      }),
    );
  });

  it('unredacted (store.redact_arguments: none), and a model span that offered no tools', () => {
    const facts = rich();
    const bare = { ...model('03', 1010, 'c3'), offered: undefined, userMessage: undefined } as SpanFacts;
    const [m, , b] = sinkPayloads([...facts, bare], storeRedactor('none'));
    expect(JSON.parse(m!)).toMatchObject({ outputText: 'Shipped.', userMessage: USER, seq: 7000 });
    expect(m).toBe(
      JSON.stringify({
        kind: 'model',
        spanId: '01',
        startMs: 1000.5,
        endMs: 1001.5,
        calls: [{ name: 'lookup_order', callId: 'c1', arguments: ARGS }],
        model: 'gpt-4o',
        userMessage: USER,
        outputText: 'Shipped.',
        error: 'boom',
        inputTokens: 12,
        outputTokens: 3,
        offered: [{ name: 'lookup_order', description: 'Look up an order.', parameters: { type: 'object' } }],
        seq: 7000,
      }),
    );
    expect(b).toBe(
      JSON.stringify({
        kind: 'model',
        spanId: '03',
        startMs: 1010,
        endMs: 1011,
        calls: [{ name: 'lookup_order', callId: 'c3', arguments: ARGS }],
        model: 'gpt-4o',
        seq: 7002,
      }),
    );
  });
});

describe('candidates at the defaults', () => {
  it('a fifth of traces (feedback_rate 0.2, the highest default rate): the others cost one hash and write nothing', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolwatch-judge-defaults-'));
    try {
      const cfg = loadConfig({ cwd: dir, env: {}, overrides: { judge: { enabled: true, model: 'm' } } }).judge;
      expect([cfg.sampleRate, cfg.feedbackRate, cfg.failedRate]).toEqual([0.02, 0.2, undefined]);
      const policy = policyOf(cfg);
      expect(maxProbability(policy)).toBe(0.2);
      // Trace ids on either side of 0.2, found by their position.
      const ids = Array.from({ length: 200 }, (_, i) => i.toString(16).padStart(32, '0'));
      const below = ids.filter((id) => samplePosition(cfg.project, id) < 0.2);
      const above = ids.filter((id) => samplePosition(cfg.project, id) >= 0.2);
      expect(below.length / ids.length).toBeGreaterThan(0.1);
      expect(below.length / ids.length).toBeLessThan(0.3);
      let writes: readonly TrajectoryWrite[] = [];
      const store = {
        trajectories: { ingestExtension: (w: readonly TrajectoryWrite[]) => ((writes = w), () => {}) },
      } as unknown as JudgeStore;
      const sink = new TrajectorySink({
        project: cfg.project,
        policy,
        store,
        now: () => 1,
        redactor: storeRedactor('secrets'),
      });
      const facts = [...below.slice(0, 3), ...above.slice(0, 3)].map((traceId) => ({
        ...model('01', 1000, 'c1'),
        traceId,
      }));
      const ext = sink.collect({ source: 'otlp', facts, calls: [] });
      expect(ext).toHaveLength(1);
      expect(writes.map((w) => w.traceId)).toEqual(below.slice(0, 3));
      expect(sink.collect({ source: 'otlp', facts: facts.slice(3), calls: [] })).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
