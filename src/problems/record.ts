/**
 * Which problem each counted failed call belongs to, and the rows that adds — grouped per problem so a
 * batch of 600 failures of five problems writes five problems' rows. Fed only the calls the pipeline
 * counted in this batch (the dedupe ledger decided), with the label values their counts were stored
 * under, so a problem's occurrences are exactly its failed calls in toolwatch_tool_calls_total.
 */
import type { CompletedTrajectory } from '../efficiency/tracker.js';
import type { CheckedCall, ReleasedExecution, SpanFacts } from '../model.js';
import type { CountedCallSink } from '../pipeline/pipeline.js';
import type { CallLabels } from '../pipeline/call-labels.js';
import type { StoreRedactor } from '../redact/stored.js';
import type { BatchExtension, Sql } from '../store/sql.js';
import { storableText } from '../store/storable-text.js';
import { type SignatureInput, signatureOf } from './signature.js';
import { SignatureCache } from './signature-cache.js';
import { repairExtension } from './cost.js';
import { CommittedProblems, ownRowExists } from './committed.js';
import { problemExtension } from './write.js';
import { Grouper, type ProblemDelta, type ProblemExample } from './delta.js';

const MAX_ARGS = 16 * 1024;
const MAX_MESSAGE = 2_000;

export interface ProblemRecorderDeps {
  /** `all`: asked once per problem, after its first committed write, whether its own row exists (write.ts). */
  sql: Pick<Sql, 'dialect' | 'all'>;
  redactor: StoreRedactor;
  maxPerService: number;
  /** The registry's schema for a tool, when the call's span offered none. */
  registrySchema?: (service: string, name: string) => unknown;
  /** The service clock (when a problem was recorded; absent: the wall clock). */
  now?: () => number;
  /**
   * problems.latest_example_every: a problem's `latest` example is rebuilt and written only when its
   * batch's latest sighting is this much newer (span time) than the latest this process committed
   * (absent: 0, every newer sighting).
   */
  latestExampleEveryMs?: number;
}

/**
 * Hooks into the pipeline (CountedCallSink): one extension per batch with failed calls, per settle
 * round with failed executions, and per write of completed trajectories that had repair turns.
 */
export class ProblemRecorder implements CountedCallSink {
  /** What committed writes of this process hold (write.ts): what later batches leave out or merge. */
  private readonly committed: CommittedProblems;
  /** Signatures of failures seen before (signature-cache.ts). */
  private readonly signatures = new SignatureCache();

  private readonly withCache: ProblemRecorderDeps & { signatures: SignatureCache };

  constructor(private readonly deps: ProblemRecorderDeps) {
    const { sql } = deps;
    this.committed = new CommittedProblems((service, id) => ownRowExists(sql, service, id));
    this.withCache = { ...deps, signatures: this.signatures };
  }

  extension(
    calls: readonly CheckedCall[],
    labels: readonly CallLabels[],
    facts: readonly SpanFacts[],
  ): BatchExtension | undefined {
    return this.write(problemDeltas(calls, labels, facts, this.withCache, this.committed));
  }

  executions(released: readonly ReleasedExecution[]): BatchExtension | undefined {
    return this.write(executionDeltas(released, this.withCache, this.committed));
  }

  trajectories(done: readonly CompletedTrajectory[]): BatchExtension | undefined {
    return repairExtension(done, this.deps.sql.dialect);
  }

  private write(deltas: ProblemDelta[]): BatchExtension | undefined {
    return deltas.length > 0
      ? problemExtension(
          deltas,
          {
            dialect: this.deps.sql.dialect,
            maxPerService: this.deps.maxPerService,
            nowMs: (this.deps.now ?? Date.now)(),
          },
          this.committed,
        )
      : undefined;
  }
}

/**
 * The checked calls' failures grouped by (service, signature). Each failed call is told its
 * signature's hash (`problemId`): the trajectory tracker files its repair turns under it.
 */
export function problemDeltas(
  calls: readonly CheckedCall[],
  labels: readonly CallLabels[],
  facts: readonly SpanFacts[],
  deps: Pick<ProblemRecorderDeps, 'redactor' | 'registrySchema' | 'latestExampleEveryMs'> & {
    signatures?: SignatureCache;
  },
  kept?: CommittedProblems,
): ProblemDelta[] {
  const spans = new SpanFinder(facts);
  const group = new Grouper<number>();
  const sign = deps.signatures ? (x: SignatureInput) => deps.signatures!.of(x) : signatureOf;
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    const o = c.outcome;
    if (o.outcome !== 'InvalidJson' && o.outcome !== 'UnknownName' && o.outcome !== 'SchemaMismatch') continue;
    const { service, model, tool } = labels[i]!;
    const signature =
      o.outcome === 'SchemaMismatch'
        ? sign({ kind: o.outcome, service, tool, errors: o.errors, schema: schemaOf(c, spans, deps) })
        : o.outcome === 'UnknownName'
          ? sign({ kind: o.outcome, service, name: storableText(c.name.slice(0, 200)) })
          : sign({ kind: o.outcome, service, tool, cause: o.cause });
    c.problemId = signature.hash;
    group.add(signature, service, model, c.timeMs, i);
  }
  return group.deltas((i) => example(calls[i]!, labels[i]!.model, deps.redactor), kept, deps.latestExampleEveryMs);
}

/**
 * Failed executions (any status but ok: client_error, server_error, error, tool_error) grouped by
 * (service, signature); the released executions carry the capped labels they are counted under.
 */
export function executionDeltas(
  released: readonly ReleasedExecution[],
  deps: Pick<ProblemRecorderDeps, 'redactor' | 'latestExampleEveryMs'> & { signatures?: SignatureCache },
  kept?: CommittedProblems,
): ProblemDelta[] {
  const group = new Grouper<ReleasedExecution>();
  const sign = deps.signatures ? (x: SignatureInput) => deps.signatures!.of(x) : signatureOf;
  for (const e of released) {
    if (e.status === 'ok') continue;
    const signature = sign({
      kind: 'execution',
      service: e.service,
      tool: e.tool,
      status: e.status,
      ...(e.httpStatus !== undefined ? { httpStatus: e.httpStatus } : {}),
      ...(e.errorType !== undefined ? { errorType: e.errorType } : {}),
    });
    e.problemId = signature.hash;
    group.add(signature, e.service, e.model, e.timeMs, e);
  }
  return group.deltas((e) => executionExample(e, deps.redactor), kept, deps.latestExampleEveryMs);
}

/**
 * A batch's span facts by span id, the last of a repeated id as a map would keep it. A batch has a
 * SchemaMismatch or two among a hundred spans: the first few are looked up by a scan, and only a
 * batch with more builds the map.
 */
class SpanFinder {
  private map: Map<string, SpanFacts> | undefined;
  private scans = 0;

  constructor(private readonly facts: readonly SpanFacts[]) {}

  get(spanId: string): SpanFacts | undefined {
    if (!this.map && this.scans++ < 4) {
      for (let i = this.facts.length - 1; i >= 0; i--) if (this.facts[i]!.spanId === spanId) return this.facts[i];
      return undefined;
    }
    if (!this.map) {
      this.map = new Map();
      for (const f of this.facts) this.map.set(f.spanId, f);
    }
    return this.map.get(spanId);
  }
}

/** The schema the call was checked against: its span's offered definition, else the registry's. */
function schemaOf(c: CheckedCall, spans: SpanFinder, deps: Pick<ProblemRecorderDeps, 'registrySchema'>): unknown {
  const offered = spans.get(c.spanId)?.offered?.find((t) => t.name === c.name)?.parameters;
  return offered ?? deps.registrySchema?.(c.service, c.name);
}

/** A failed execution's example: its arguments, and what it answered (both masked like stored failures). */
function executionExample(e: ReleasedExecution, redactor: StoreRedactor): Omit<ProblemExample, 'slot'> {
  const args = e.args !== undefined ? redactor.json(e.args.slice(0, MAX_ARGS * 2)) : undefined;
  const detail = e.httpStatus !== undefined ? `HTTP ${e.httpStatus}` : (e.errorType ?? '');
  const head = `${e.status}${detail ? `: ${detail}` : ''}`;
  const result = e.result !== undefined ? masked(e.result.slice(0, MAX_MESSAGE * 2), redactor) : undefined;
  const text =
    result === undefined ? head : `${head} — ${result.ok ? result.value : `[result not stored: ${result.reason}]`}`;
  return {
    timeMs: Math.floor(e.timeMs),
    model: e.model,
    traceId: storableText(e.traceId.slice(0, 200)),
    spanId: storableText((e.spanId ?? '').slice(0, 200)),
    name: storableText(e.tool.slice(0, 1000)),
    ...(args?.ok ? { arguments: storableText(args.value.slice(0, MAX_ARGS)) } : {}),
    message: storableText(text.slice(0, MAX_MESSAGE)),
  };
}

/** A result as text: JSON masked by key (secret-named fields), anything else as free text. */
function masked(result: string, redactor: StoreRedactor) {
  const trimmed = result.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const j = redactor.json(result);
    if (j.ok) return j;
  }
  return redactor.text(result);
}

/** An example as a stored failure keeps it: arguments and parse errors masked by the store redactor. */
function example(c: CheckedCall, model: string, redactor: StoreRedactor): Omit<ProblemExample, 'slot'> {
  const o = c.outcome;
  // Arguments that JSON.parse refused (every InvalidJson cause but not_object) are masked as text:
  // what redactor.json does after its own parse throws, without parsing (and throwing) once more.
  const unparsed =
    o.outcome === 'InvalidJson' &&
    o.cause !== 'not_object' &&
    c.args.kind === 'string' &&
    c.args.raw.length <= MAX_ARGS * 2;
  const args =
    c.args.kind === 'none'
      ? undefined
      : unparsed
        ? redactor.text(c.args.raw)
        : redactor.json(c.args.raw.slice(0, MAX_ARGS * 2));
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
