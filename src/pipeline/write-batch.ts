/**
 * Turns checked calls and executions into the rows of one store write: minute aggregates for
 * every call, failure records for failed ones — at most N per tool per minute, the rest counted
 * as dropped — so storage grows with errors, not with traffic. A call's names are derived once
 * (callLabels): the real (clipped, storable) ones its rows are stored under, and the capped ones of
 * its metric — the cap never reaches the store (label-cap.ts).
 */
import { type LabelCap, OTHER } from '../metrics/label-cap.js';
import {
  countedTool,
  UNKNOWN_TOOL,
  UNNAMED_TOOL,
  type CheckedCall,
  type ReleasedExecution,
  type SourceName,
} from '../model.js';
import type { StoreRedactor } from '../redact/stored.js';
import type { BatchExtension, CallAggregate, ExecutionAggregate, FailureDrop, FailureRecord } from '../store/store.js';
import type { BatchSink, PipelineDeps } from './ports.js';
import { minuteOf } from '../store/store.js';
import { storableText } from '../store/storable-text.js';
import type { ExecutionToRecord } from './merge.js';

const MAX_TEXT = 200;
const MAX_ARGS = 64 * 1024;
/** Redaction sees this much past the clip, so a secret cut by the clip was still seen whole. */
const REDACT_MARGIN = 8 * 1024;

/** Bounded and storable everywhere (storable-text.ts): NUL and lone surrogates become U+FFFD. */
const clip = (s: string, n = MAX_TEXT): string => storableText(s.length > n ? s.slice(0, n) : s);

/** A trace, span or call id as failure records store it (and as rows keyed to them must). */
export const storedId = (id: string): string => clip(id);

/** A call's names as stored: clipped and storable, never capped. */
export interface CallNames {
  service: string;
  model: string;
  /** The tool as counted: its name, `_unknown` for an UnknownName call, `_unnamed` for a nameless one. */
  tool: string;
}

/** A call's names as stored, and its metric's labels (the same names, capped). */
export interface CallLabels extends CallNames {
  metric: CallNames;
}

/**
 * An execution's names as stored, fixed when its tool span arrives (its status is settled later:
 * executions.ts); its metric labels are read off the cap then (LabelCap.peek).
 */
export interface ExecutionLabels {
  service: string;
  tool: string;
}

/**
 * The names a call is counted under: in the store clipped and storable, `_unknown` for a name the
 * model invented, `_unnamed` for a call or execution no span named; in /metrics the same, capped per
 * label (overflow → `_other`, so no input can explode cardinality). Derived once per call, so the
 * metric and the stored row agree wherever the cap left the name alone. `budget`: the sender's share
 * of the cap (label-cap.ts).
 */
export function callLabels(c: CheckedCall, cap: LabelCap, budget?: string): CallLabels {
  const service = clip(c.service);
  const model = clip(c.model);
  const tool = countedName(countedTool(c.outcome.outcome, c.name));
  return {
    service,
    model,
    tool,
    metric: {
      service: cap.value('service', service, budget),
      model: cap.value('model', model, budget),
      tool: toolLabel(tool, cap, budget),
    },
  };
}

/**
 * callLabels of each of a batch's calls (all under one budget). A batch's calls share a few names: a
 * call under the names of an earlier one whose labels the cap admitted whole takes that call's labels
 * (the same object; labels are never changed once made) — asked again, the cap would answer the same
 * and charge nothing. Names the cap turned into `_other` are asked again per call, as before.
 */
export function batchCallLabels(calls: readonly CheckedCall[], cap: LabelCap, budget?: string): CallLabels[] {
  const out: CallLabels[] = new Array<CallLabels>(calls.length);
  const seen: { service: string; model: string; name: string; unknown: boolean; labels: CallLabels }[] = [];
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    const unknown = c.outcome.outcome === 'UnknownName';
    let labels: CallLabels | undefined;
    for (let j = 0; j < seen.length; j++) {
      const x = seen[j]!;
      if (x.name === c.name && x.service === c.service && x.model === c.model && x.unknown === unknown) {
        labels = x.labels;
        break;
      }
    }
    if (labels === undefined) {
      labels = callLabels(c, cap, budget);
      const m = labels.metric;
      // A name spelled `_other` cannot be told from the cap's overflow value: asked again.
      const admitted =
        m.service === labels.service &&
        m.model === labels.model &&
        m.tool === labels.tool &&
        m.service !== OTHER &&
        m.model !== OTHER &&
        m.tool !== OTHER;
      if (admitted && seen.length < REUSED_LABELS)
        seen.push({ service: c.service, model: c.model, name: c.name, unknown, labels });
    }
    out[i] = labels;
  }
  return out;
}

/** Label sets a batch remembers for reuse (batchCallLabels): compared one by one. */
const REUSED_LABELS = 16;

/** An execution's stored names; its labels are asked for under the sender's budget now, read when it is counted. */
export function executionLabels(e: ExecutionToRecord, cap: LabelCap, budget?: string): ExecutionLabels {
  const service = clip(e.service);
  const tool = countedName(e.execution.name === '' ? UNNAMED_TOOL : e.execution.name);
  cap.value('service', service, budget);
  toolLabel(tool, cap, budget);
  return { service, tool };
}

/** A model name as stored (a trajectory's model): clipped and storable. */
export function storedName(name: string): string {
  return clip(name);
}

/** The `scope` label of toolwatch_spans_unrecognized_total: the scope name, clipped and capped. */
export function scopeLabel(scope: string, cap: LabelCap, budget?: string): string {
  return cap.value('scope', clip(scope), budget);
}

/** `_unknown` and `_unnamed` are fixed values; any other name is clipped. */
function countedName(counted: string): string {
  return counted === UNKNOWN_TOOL || counted === UNNAMED_TOOL ? counted : clip(counted);
}

/** `_unknown` and `_unnamed` are fixed values, never capped; any other (clipped) name is capped. */
function toolLabel(tool: string, cap: LabelCap, budget?: string): string {
  return tool === UNKNOWN_TOOL || tool === UNNAMED_TOOL ? tool : cap.value('tool', tool, budget);
}

/** An execution's or trajectory's metric label for a stored name (`_unknown`, `_unnamed` as they are). */
export function peekLabel(cap: LabelCap, label: 'service' | 'tool', name: string): string {
  return label === 'tool' && (name === UNKNOWN_TOOL || name === UNNAMED_TOOL) ? name : cap.peek(label, name);
}

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
