/**
 * The per-framework span fixtures under test/fixtures/dialects/<framework>/ (OTLP/JSON requests as
 * each emitter writes them, see each README) with the calls a correct reader counts, and a runner
 * that puts one trace through the whole pipeline (normalize → merge → check → store + metrics).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ToolRegistry } from '../../src/check/registry.js';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { decodeJson } from '../../src/sources/otlp/decode.js';
import { LabelCap } from '../../src/metrics/label-cap.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { Ledger } from '../../src/pipeline/ledger.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { CallAggregate, PendingKey, Store, WriteBatch } from '../../src/store/store.js';
import { storeRedactor } from '../../src/redact/stored.js';

export const DIALECT_FIXTURES = path.resolve(process.cwd(), 'test/fixtures/dialects');

export interface ExpectedCall {
  /** The metric label: the tool name, `_unknown` for an invented one, `_unnamed` for a nameless one. */
  tool: string;
  outcome: string;
  reason?: string;
}

export interface ExpectedTrace {
  traceId: string;
  calls: ExpectedCall[];
  executions: number;
}

export interface DialectFixture {
  name: string;
  /** The OTLP/JSON ExportTraceServiceRequest as stored. */
  request: Record<string, unknown>;
  spans: Span[];
  traces: ExpectedTrace[];
}

export function loadDialectFixtures(): DialectFixture[] {
  return readdirSync(DIALECT_FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const dir = path.join(DIALECT_FIXTURES, name);
      const text = readFileSync(path.join(dir, 'trace.json'), 'utf8');
      const decoded = decodeJson(text);
      if (!decoded.ok || decoded.rejectedSpans > 0) throw new Error(`${name}: fixture does not decode cleanly`);
      const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { traces: ExpectedTrace[] };
      return {
        name,
        request: JSON.parse(text) as Record<string, unknown>,
        spans: decoded.spans,
        traces: expected.traces,
      };
    });
}

/** `tool|outcome|reason` → count, for comparing multisets of calls. */
export function callKey(c: ExpectedCall): string {
  return `${c.tool}|${c.outcome}|${c.reason ?? ''}`;
}

export function tally(calls: readonly ExpectedCall[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of calls) out[callKey(c)] = (out[callKey(c)] ?? 0) + 1;
  return out;
}

export interface TraceRun {
  calls: ExpectedCall[];
  executions: number;
  /** The model label of every counted call, in count order. */
  models: string[];
}

/**
 * Runs the given batches (in arrival order) through a fresh pipeline, waits out every grace
 * period and returns the calls as stored (tool label, outcome, reason) and the executions counted.
 */
export async function runBatches(batches: readonly (readonly Span[])[]): Promise<TraceRun> {
  const sqlite = new SqliteStore({ path: ':memory:', synchronous: 'NORMAL' });
  const aggregates: CallAggregate[] = [];
  const store = new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop === 'write') {
        return async (batch: WriteBatch) => {
          await target.write(batch);
          aggregates.push(...batch.callAggregates);
        };
      }
      // Calls counted after their grace period are written by settlePending.
      if (prop === 'settlePending') {
        return async (
          owner: string,
          keys: readonly PendingKey[],
          build: (held: readonly PendingKey[]) => WriteBatch,
        ) => {
          let built: WriteBatch | undefined;
          const held = await target.settlePending(owner, keys, (h) => (built = build(h)));
          if (built) aggregates.push(...built.callAggregates);
          return held;
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as unknown as Store;
  const metrics = createMetrics();
  const clock = { now: 2_000_000_000_000 };
  const pipeline = new Pipeline({
    dialects: builtinDialects(),
    redactor: storeRedactor('secrets'),
    registry: new ToolRegistry(),
    schemas: new SchemaCache(),
    ledger: new Ledger({ maxTraces: 100, maxCallsPerTrace: 1000, traceTtlMs: 3_600_000 }),
    store,
    metrics,
    labels: new LabelCap(100),
    failuresPerToolPerMinute: 100,
    executionGraceMs: 10_000,
    now: () => clock.now,
  });
  for (const b of batches) {
    await pipeline.ingestSpans(b);
    clock.now += 1_000;
  }
  clock.now += 60_000;
  await pipeline.settle();
  const calls: ExpectedCall[] = [];
  const models: string[] = [];
  for (const a of aggregates) {
    for (let i = 0; i < a.count; i++) models.push(a.model);
    for (let i = 0; i < a.count; i++)
      calls.push(
        // An unvalidated call's reason, an InvalidJson call's cause (issue 19).
        a.outcome === 'unvalidated' || a.outcome === 'InvalidJson'
          ? { tool: a.tool, outcome: a.outcome, reason: a.reason }
          : { tool: a.tool, outcome: a.outcome },
      );
  }
  const executions = (await metrics.toolExecutions.get()).values.reduce((n, v) => n + v.value, 0);
  await sqlite.close();
  return { calls, executions, models };
}

/** The spans of one trace, in fixture order. */
export function spansOf(f: DialectFixture, traceId: string): Span[] {
  return f.spans.filter((s) => s.traceId === traceId);
}

export interface CoverageScore {
  traces: number;
  exact: number;
  calls: number;
  found: number;
  perTrace: {
    fixture: string;
    traceId: string;
    exact: boolean;
    found: number;
    expected: number;
    got: Record<string, number>;
  }[];
}

/**
 * "Traces counted exactly" = the stored calls (tool label, outcome, reason) and the execution count
 * equal the expected ones; "calls found" = per tool, min(expected, counted), summed.
 */
export async function scoreFixtures(fixtures: readonly DialectFixture[]): Promise<CoverageScore> {
  const score: CoverageScore = { traces: 0, exact: 0, calls: 0, found: 0, perTrace: [] };
  for (const f of fixtures) {
    for (const t of f.traces) {
      const run = await runBatches([spansOf(f, t.traceId)]);
      const want = tally(t.calls);
      const got = tally(run.calls);
      const exact =
        JSON.stringify(Object.entries(want).sort()) === JSON.stringify(Object.entries(got).sort()) &&
        run.executions === t.executions;
      const byTool = (cs: readonly ExpectedCall[]) => {
        const m: Record<string, number> = {};
        for (const c of cs) m[c.tool] = (m[c.tool] ?? 0) + 1;
        return m;
      };
      const wantTools = byTool(t.calls);
      const gotTools = byTool(run.calls);
      let found = 0;
      for (const [tool, n] of Object.entries(wantTools)) found += Math.min(n, gotTools[tool] ?? 0);
      score.traces++;
      score.calls += t.calls.length;
      score.found += found;
      if (exact) score.exact++;
      score.perTrace.push({
        fixture: f.name,
        traceId: t.traceId,
        exact,
        found,
        expected: t.calls.length,
        got: { ...got, executions: run.executions },
      });
    }
  }
  return score;
}
