/**
 * Turns checked calls and executions into the rows of one store write: minute aggregates for
 * every call, failure records for failed ones — at most N per tool per minute, the rest counted
 * as dropped — so storage grows with errors, not with traffic. Each call comes with its names
 * derived once (call-labels.ts): the stored ones its rows use; its metric's capped labels are
 * read elsewhere.
 */
import type { CheckedCall, ReleasedExecution, SourceName } from '../model.js';
import type { StoreRedactor } from '../redact/stored.js';
import type { BatchExtension, CallAggregate, ExecutionAggregate, FailureDrop, FailureRecord } from '../store/store.js';
import type { BatchSink, PipelineDeps } from './ports.js';
import { minuteOf } from '../store/store.js';
import { type CallLabels, clip, storedId } from './call-labels.js';

const MAX_ARGS = 64 * 1024;
/** Redaction sees this much past the clip, so a secret cut by the clip was still seen whole. */
const REDACT_MARGIN = 8 * 1024;

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
      for (const k of this.kept.keys())
        if (Number(k.slice(0, k.indexOf('|'))) < nowMinute - 60_000) this.kept.delete(k);
    }
    for (const [k, n] of increments) this.kept.set(k, (this.kept.get(k) ?? 0) + n);
  }
}

/** The rows one batch writes for its calls and executions. */
export interface CallRows {
  callAggregates: CallAggregate[];
  executionAggregates: ExecutionAggregate[];
  failures: FailureRecord[];
  failureDrops: FailureDrop[];
}

export interface WritePlan {
  rows: CallRows;
  dropped: number;
  /** Stored values the redactor refused (left out, the reason recorded): arguments and messages. */
  redactionFailures: { arguments: number; message: number };
  /** Call after the batch committed: the cap counts only what was stored. */
  commitCaps(): void;
}

/** `labels[i]` are the labels of `calls[i]`; executions come counted (executions.ts), labels and all. */
export function buildWrite(
  source: SourceName,
  calls: readonly CheckedCall[],
  labels: readonly CallLabels[],
  executions: readonly ReleasedExecution[],
  cap: FailureCap,
  nowMs: number,
  redactor: StoreRedactor,
): WritePlan {
  const aggregates = new CallMinutes();
  const failures: FailureRecord[] = [];
  const drops = new Map<string, { minute: number; service: string; tool: string; dropped: number }>();
  const capUse = new Map<string, number>();
  let dropped = 0;
  const redactionFailures = { arguments: 0, message: 0 };

  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    const { service, model, tool } = labels[i]!;
    const o = c.outcome;
    const minute = minuteOf(c.timeMs);
    const reason = o.outcome === 'unvalidated' ? o.reason : o.outcome === 'InvalidJson' ? o.cause : '';
    aggregates.count(minute, source, service, model, tool, o.outcome, reason);

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
    // Only what is stored is masked; the outcome above was decided on the arguments as sent.
    const args = c.args.kind !== 'none' ? redactor.json(c.args.raw.slice(0, MAX_ARGS + REDACT_MARGIN)) : undefined;
    const text =
      o.outcome === 'InvalidJson'
        ? o.message
        : o.outcome === 'UnknownName'
          ? `not among the offered tools: ${o.known.slice(0, 50).join(', ')}`
          : c.schemaFrom === 'tool_span'
            ? `${summarize(o.errors)} (schema from the tool span)`
            : summarize(o.errors);
    // A JSON parse error quotes the input it choked on.
    const message = o.outcome === 'InvalidJson' ? redactor.text(text) : { ok: true as const, value: text };
    if (args && !args.ok) redactionFailures.arguments++;
    if (!message.ok) redactionFailures.message++;
    failures.push({
      // Span times carry sub-millisecond fractions; the stores keep whole milliseconds.
      timeMs: Math.floor(c.timeMs),
      source,
      service,
      model,
      tool,
      name: clip(c.name, 1000),
      outcome: o.outcome,
      traceId: storedId(c.traceId),
      spanId: storedId(c.spanId),
      ...(c.callId ? { callId: storedId(c.callId) } : {}),
      ...(args?.ok ? { arguments: clip(args.value, MAX_ARGS) } : {}),
      ...(args && !args.ok ? { argumentsOmitted: args.reason } : {}),
      errors: o.outcome === 'SchemaMismatch' ? o.errors : [],
      message: clip(message.ok ? message.value : `[message not stored: ${message.reason}]`, 2000),
      ...(o.outcome === 'InvalidJson' ? { reason: o.cause } : {}),
    });
  }

  const execAggs = new ExecutionMinutes();
  for (const e of executions) execAggs.count(minuteOf(e.timeMs || nowMs), source, e);

  return {
    rows: {
      callAggregates: aggregates.rows,
      executionAggregates: execAggs.rows,
      failures,
      failureDrops: [...drops.values()],
    },
    dropped,
    redactionFailures,
    commitCaps: () => cap.commit(capUse, minuteOf(nowMs)),
  };
}

/**
 * A batch's call minutes, in the order first seen. A batch's calls fall in a few rows: a row is found
 * by comparing its fields (no key string built and hashed per call), past SCAN_LIMIT rows through a
 * map as well.
 */
class CallMinutes {
  readonly rows: CallAggregate[] = [];
  private byKey: Map<string, CallAggregate> | undefined;

  count(
    minute: number,
    source: SourceName,
    service: string,
    model: string,
    tool: string,
    outcome: CallAggregate['outcome'],
    reason: string,
  ): void {
    const rows = this.rows;
    if (this.byKey === undefined) {
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!;
        if (
          r.minute === minute &&
          r.tool === tool &&
          r.outcome === outcome &&
          r.service === service &&
          r.model === model &&
          r.reason === reason
        ) {
          r.count++;
          return;
        }
      }
      rows.push({ minute, source, service, model, tool, outcome, reason, count: 1 });
      if (rows.length >= SCAN_LIMIT) {
        this.byKey = new Map();
        for (const r of rows) this.byKey.set(minuteKey(r.minute, r.service, r.model, r.tool, r.outcome, r.reason), r);
      }
      return;
    }
    const key = minuteKey(minute, service, model, tool, outcome, reason);
    const had = this.byKey.get(key);
    if (had) had.count++;
    else {
      const r = { minute, source, service, model, tool, outcome, reason, count: 1 };
      rows.push(r);
      this.byKey.set(key, r);
    }
  }
}

/** Rows compared one by one up to this many in a batch. */
const SCAN_LIMIT = 32;

/**
 * A settle round's execution minutes, in the order first seen. A round releases thousands of
 * executions in arrival order, in runs of the same service, tool and outcome: the row of the one
 * before is tried first, then the others by comparing fields (no key string per execution), past
 * SCAN_LIMIT rows through a map as well.
 */
class ExecutionMinutes {
  readonly rows: ExecutionAggregate[] = [];
  private last: ExecutionAggregate | undefined;
  private byKey: Map<string, ExecutionAggregate> | undefined;

  count(minute: number, source: SourceName, e: ReleasedExecution): void {
    const last = this.last;
    if (last !== undefined && sameExecutionRow(last, minute, e)) {
      last.count++;
      return;
    }
    let row: ExecutionAggregate | undefined;
    if (this.byKey === undefined) {
      for (const r of this.rows)
        if (sameExecutionRow(r, minute, e)) {
          row = r;
          break;
        }
    } else row = this.byKey.get(executionKey(minute, e));
    if (row === undefined) {
      const { service, model, tool, status, callOutcome } = e;
      row = { minute, source, service, model, tool, status, callOutcome, count: 0 };
      this.rows.push(row);
      if (this.byKey !== undefined) this.byKey.set(executionKey(minute, e), row);
      else if (this.rows.length >= SCAN_LIMIT) {
        this.byKey = new Map();
        for (const r of this.rows) this.byKey.set(executionKey(r.minute, r), r);
      }
    }
    row.count++;
    this.last = row;
  }
}

function sameExecutionRow(r: ExecutionAggregate, minute: number, e: ReleasedExecution): boolean {
  return (
    r.minute === minute &&
    r.tool === e.tool &&
    r.status === e.status &&
    r.callOutcome === e.callOutcome &&
    r.service === e.service &&
    r.model === e.model
  );
}

const executionKey = (
  minute: number,
  e: Pick<ExecutionAggregate, 'service' | 'model' | 'tool' | 'status' | 'callOutcome'>,
) => `${minute}\u0000${e.service}\u0000${e.model}\u0000${e.tool}\u0000${e.status}\u0000${e.callOutcome}`;

const minuteKey = (minute: number, service: string, model: string, tool: string, outcome: string, reason: string) =>
  `${minute}\u0000${service}\u0000${model}\u0000${tool}\u0000${outcome}\u0000${reason}`;

function summarize(errors: readonly { instancePath: string; message: string }[]): string {
  return errors
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');
}

/**
 * The rows a batch's own transaction carries besides its calls' (built without a spread per part):
 * the sinks', the caller's (`extend`), the failure contexts' (`context`), the counted calls'.
 */
export function batchExtensions(
  deps: Pick<PipelineDeps, 'sinks' | 'counted'>,
  input: Parameters<BatchSink['collect']>[0],
  labels: readonly CallLabels[],
  extend: ((calls: readonly CheckedCall[]) => readonly BatchExtension[]) | undefined,
  context: BatchExtension | undefined,
): BatchExtension[] {
  const out: BatchExtension[] = [];
  if (deps.sinks) for (const sink of deps.sinks) for (const x of sink.collect(input)) out.push(x);
  if (extend) for (const x of extend(input.calls)) out.push(x);
  if (context) out.push(context);
  const counted = deps.counted?.extension(input.calls, labels, input.facts);
  if (counted !== undefined) out.push(counted);
  return out;
}
