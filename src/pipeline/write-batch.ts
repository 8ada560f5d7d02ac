/**
 * Turns checked calls and executions into the rows of one store write: minute aggregates for
 * every call, failure records for failed ones — at most N per tool per minute, the rest counted
 * as dropped — so storage grows with errors, not with traffic.
 */
import type { CheckedCall, SourceName } from '../model.js';
import type { CallAggregate, ExecutionAggregate, FailureRecord, WriteBatch } from '../store/store.js';
import { minuteOf } from '../store/store.js';
import { storableText } from '../store/storable-text.js';
import type { ExecutionToRecord } from './merge.js';

export const UNKNOWN_TOOL = '_unknown';
const MAX_TEXT = 200;
const MAX_ARGS = 64 * 1024;

/** Bounded and storable everywhere (storable-text.ts): NUL and lone surrogates become U+FFFD. */
const clip = (s: string, n = MAX_TEXT): string => storableText(s.length > n ? s.slice(0, n) : s);

/** Records kept per (minute, service, tool); remembered for the current and previous minutes only. */
export class FailureCap {
  private readonly kept = new Map<string, number>();
  private minute = 0;

  constructor(readonly perMinute: number) {}

  used(key: string): number {
    return this.kept.get(key) ?? 0;
  }

  commit(increments: Map<string, number>, nowMinute: number): void {
    if (nowMinute !== this.minute) {
      this.minute = nowMinute;
      for (const k of this.kept.keys()) if (Number(k.slice(0, k.indexOf('|'))) < nowMinute - 60_000) this.kept.delete(k);
    }
    for (const [k, n] of increments) this.kept.set(k, (this.kept.get(k) ?? 0) + n);
  }
}

export interface WritePlan {
  batch: WriteBatch;
  dropped: number;
  /** Call after the batch committed: the cap counts only what was stored. */
  commitCaps(): void;
}

export function buildWrite(source: SourceName, calls: readonly CheckedCall[], executions: readonly ExecutionToRecord[], cap: FailureCap, nowMs: number): WritePlan {
  const aggregates = new Map<string, CallAggregate>();
  const failures: FailureRecord[] = [];
  const drops = new Map<string, { minute: number; service: string; tool: string; dropped: number }>();
  const capUse = new Map<string, number>();
  let dropped = 0;

  for (const c of calls) {
    const o = c.outcome;
    const tool = clip(o.outcome === 'UnknownName' ? UNKNOWN_TOOL : c.name);
    const minute = minuteOf(c.timeMs);
    const service = clip(c.service);
    const model = clip(c.model);
    const reason = o.outcome === 'unvalidated' ? o.reason : '';
    const key = `${minute}\u0000${service}\u0000${model}\u0000${tool}\u0000${o.outcome}\u0000${reason}`;
    const agg = aggregates.get(key);
    if (agg) agg.count++;
    else aggregates.set(key, { minute, source, service, model, tool, outcome: o.outcome, reason, count: 1 });

    if (o.outcome !== 'InvalidJson' && o.outcome !== 'UnknownName' && o.outcome !== 'SchemaMismatch') continue;
    const capKey = `${minute}|${service}|${tool}`;
    const used = cap.used(capKey) + (capUse.get(capKey) ?? 0);
    if (used >= cap.perMinute) {
      dropped++;
      const d = drops.get(capKey);
      if (d) d.dropped++;
      else drops.set(capKey, { minute, service, tool, dropped: 1 });
      continue;
    }
    capUse.set(capKey, (capUse.get(capKey) ?? 0) + 1);
    failures.push({
      // Span times carry sub-millisecond fractions; the stores keep whole milliseconds.
      timeMs: Math.floor(c.timeMs),
      source,
      service,
      model,
      tool,
      name: clip(c.name, 1000),
      outcome: o.outcome,
      traceId: clip(c.traceId),
      spanId: clip(c.spanId),
      ...(c.callId ? { callId: clip(c.callId) } : {}),
      ...(c.args.kind !== 'none' ? { arguments: clip(c.args.raw, MAX_ARGS) } : {}),
      errors: o.outcome === 'SchemaMismatch' ? o.errors : [],
      message: clip(o.outcome === 'InvalidJson' ? o.message : o.outcome === 'UnknownName' ? `not among the offered tools: ${o.known.slice(0, 50).join(', ')}` : summarize(o.errors), 2000),
    });
  }

  const execAggs = new Map<string, ExecutionAggregate>();
  for (const e of executions) {
    const minute = minuteOf(e.timeMs || nowMs);
    const service = clip(e.service);
    const tool = clip(e.execution.name);
    const key = `${minute}\u0000${service}\u0000${tool}\u0000${e.execution.status}`;
    const agg = execAggs.get(key);
    if (agg) agg.count++;
    else execAggs.set(key, { minute, source, service, tool, status: e.execution.status, count: 1 });
  }

  return {
    batch: { callAggregates: [...aggregates.values()], executionAggregates: [...execAggs.values()], failures, failureDrops: [...drops.values()], pendingAdd: [], pendingRemove: [], extensions: [] },
    dropped,
    commitCaps: () => cap.commit(capUse, minuteOf(nowMs)),
  };
}

function summarize(errors: readonly { instancePath: string; message: string }[]): string {
  return errors
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');
}

