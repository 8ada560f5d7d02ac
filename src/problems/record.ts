/**
 * Which problem each counted failed call belongs to, and the rows that adds — grouped per problem so a
 * batch of 600 failures of five problems writes five problems' rows. Fed only the calls the pipeline
 * counted in this batch (the dedupe ledger decided), with the label values their counts were stored
 * under, so a problem's occurrences are exactly its failed calls in toolwatch_tool_calls_total.
 */
import type { CheckedCall, SpanFacts } from '../model.js';
import type { CountedCallSink } from '../pipeline/pipeline.js';
import type { CallLabels } from '../pipeline/write-batch.js';
import type { StoreRedactor } from '../redact/stored.js';
import type { BatchExtension, Sql } from '../store/sql.js';
import { storableText } from '../store/storable-text.js';
import { signatureOf, type Signature } from './signature.js';
import { problemExtension } from './store.js';

const HOUR = 3_600_000;
const MAX_ARGS = 16 * 1024;
const MAX_MESSAGE = 2_000;

export interface ProblemExample {
  slot: string;
  timeMs: number;
  model: string;
  traceId: string;
  spanId: string;
  name: string;
  arguments?: string;
  message: string;
}

/** What one batch adds to one problem. */
export interface ProblemDelta {
  signature: Signature;
  service: string;
  occurrences: number;
  firstMs: number;
  lastMs: number;
  hours: Map<number, number>;
  models: Map<string, { count: number; firstMs: number; lastMs: number }>;
  /** `first` (earliest in the batch), `latest`, and the first of each model. */
  examples: Map<string, ProblemExample>;
}

export interface ProblemRecorderDeps {
  sql: Pick<Sql, 'dialect'>;
  redactor: StoreRedactor;
  maxPerService: number;
  /** The registry's schema for a tool, when the call's span offered none. */
  registrySchema?: (service: string, name: string) => unknown;
  /** The service clock (when a problem was recorded; absent: the wall clock). */
  now?: () => number;
}

/** Hooks into the pipeline (CountedCallSink): one extension per batch with failed calls. */
export class ProblemRecorder implements CountedCallSink {
  constructor(private readonly deps: ProblemRecorderDeps) {}

  extension(
    calls: readonly CheckedCall[],
    labels: readonly CallLabels[],
    facts: readonly SpanFacts[],
  ): BatchExtension | undefined {
    const deltas = problemDeltas(calls, labels, facts, this.deps);
    return deltas.length > 0
      ? problemExtension(deltas, {
          dialect: this.deps.sql.dialect,
          maxPerService: this.deps.maxPerService,
          nowMs: (this.deps.now ?? Date.now)(),
        })
      : undefined;
  }
}

/** The checked calls' failures grouped by (service, signature). */
export function problemDeltas(
  calls: readonly CheckedCall[],
  labels: readonly CallLabels[],
  facts: readonly SpanFacts[],
  deps: Pick<ProblemRecorderDeps, 'redactor' | 'registrySchema'>,
): ProblemDelta[] {
  const bySpan = new Map<string, SpanFacts>();
  for (const f of facts) bySpan.set(f.spanId, f);
  const out = new Map<string, ProblemDelta>();
  const picks = new Map<ProblemDelta, Map<string, number>>();
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    const o = c.outcome;
    if (o.outcome !== 'InvalidJson' && o.outcome !== 'UnknownName' && o.outcome !== 'SchemaMismatch') continue;
    const { service, model, tool } = labels[i]!;
    const signature =
      o.outcome === 'SchemaMismatch'
        ? signatureOf({ kind: o.outcome, service, tool, errors: o.errors, schema: schemaOf(c, bySpan, deps) })
        : o.outcome === 'UnknownName'
          ? signatureOf({ kind: o.outcome, service, name: storableText(c.name.slice(0, 200)) })
          : signatureOf({ kind: o.outcome, service, tool, cause: o.cause });
    const key = `${service}\u0000${signature.hash}`;
    const t = Math.floor(c.timeMs);
    let d = out.get(key);
    if (!d) {
      d = {
        signature,
        service,
        occurrences: 0,
        firstMs: t,
        lastMs: t,
        hours: new Map(),
        models: new Map(),
        examples: new Map(),
      };
      out.set(key, d);
    }
    d.occurrences++;
    d.firstMs = Math.min(d.firstMs, t);
    d.lastMs = Math.max(d.lastMs, t);
    const hour = t - (t % HOUR);
    d.hours.set(hour, (d.hours.get(hour) ?? 0) + 1);
    const m = d.models.get(model);
    if (m) {
      m.count++;
      m.firstMs = Math.min(m.firstMs, t);
      m.lastMs = Math.max(m.lastMs, t);
    } else d.models.set(model, { count: 1, firstMs: t, lastMs: t });
    // Which call fills each example slot; the examples are built (and redacted) once, after the loop.
    const slots = picks.get(d) ?? new Map<string, number>();
    picks.set(d, slots);
    const first = slots.get('first');
    if (first === undefined || t < Math.floor(calls[first]!.timeMs)) slots.set('first', i);
    const latest = slots.get('latest');
    if (latest === undefined || t >= Math.floor(calls[latest]!.timeMs)) slots.set('latest', i);
    if (!slots.has(`model:${model}`)) slots.set(`model:${model}`, i);
  }
  for (const [d, slots] of picks) {
    const built = new Map<number, Omit<ProblemExample, 'slot'>>();
    for (const [slot, i] of slots) {
      let ex = built.get(i);
      if (!ex) built.set(i, (ex = example(calls[i]!, labels[i]!.model, deps.redactor)));
      d.examples.set(slot, { ...ex, slot });
    }
  }
  return [...out.values()];
}

/** The schema the call was checked against: its span's offered definition, else the registry's. */
function schemaOf(
  c: CheckedCall,
  bySpan: ReadonlyMap<string, SpanFacts>,
  deps: Pick<ProblemRecorderDeps, 'registrySchema'>,
): unknown {
  const offered = bySpan.get(c.spanId)?.offered?.find((t) => t.name === c.name)?.parameters;
  return offered ?? deps.registrySchema?.(c.service, c.name);
}

/** An example as a stored failure keeps it: arguments and parse errors masked by the store redactor. */
function example(c: CheckedCall, model: string, redactor: StoreRedactor): Omit<ProblemExample, 'slot'> {
  const o = c.outcome;
  const args = c.args.kind !== 'none' ? redactor.json(c.args.raw.slice(0, MAX_ARGS * 2)) : undefined;
  const text =
    o.outcome === 'InvalidJson'
      ? o.message
      : o.outcome === 'UnknownName'
        ? 'not among the offered tools'
        : o.outcome === 'SchemaMismatch'
          ? o.errors
              .slice(0, 3)
              .map((e) => `${e.instancePath || '/'} ${e.message}`)
              .join('; ')
          : '';
  // A JSON parse error quotes the input it choked on.
  const message = o.outcome === 'InvalidJson' ? redactor.text(text) : { ok: true as const, value: text };
  return {
    timeMs: Math.floor(c.timeMs),
    model,
    traceId: storableText(c.traceId.slice(0, 200)),
    spanId: storableText(c.spanId.slice(0, 200)),
    name: storableText(c.name.slice(0, 1000)),
    ...(args?.ok ? { arguments: storableText(args.value.slice(0, MAX_ARGS)) } : {}),
    message: storableText(
      (message.ok ? message.value : `[message not stored: ${message.reason}]`).slice(0, MAX_MESSAGE),
    ),
  };
}
