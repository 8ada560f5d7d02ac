/**
 * A merged call checked into a CheckedCall, under one batch's bounds (its compile allowance and
 * validation deadline). Shared by the per-batch flow (pipeline.ts) and the settle path (settle.ts),
 * which checks the calls that waited; the compile budget is one per pipeline, across both.
 */
import type { CheckedCall, SourceName } from '../model.js';
import { CompileBudget, DEFAULT_CHECK_LIMITS, type CheckLimits } from '../check/budget.js';
import { classify, type CheckBounds } from '../check/classify.js';
import type { CallToCount } from './merge.js';
import type { PipelineDeps } from './ports.js';

export class CallChecker {
  private readonly limits: CheckLimits;
  private readonly compiles: CompileBudget;

  constructor(private readonly deps: PipelineDeps) {
    this.limits = deps.check ?? DEFAULT_CHECK_LIMITS;
    this.compiles = new CompileBudget(this.limits);
  }

  /** What one batch's checking may cost, from now: its compile allowance and its validation deadline. */
  bounds(token?: string): CheckBounds {
    const deadlineMs = performance.now() + this.limits.validationTimePerBatchMs;
    return { limits: this.limits, compiles: this.compiles.forBatch(token), deadlineMs };
  }

  check(c: CallToCount, source: SourceName, now: number, bounds: CheckBounds): CheckedCall {
    const outcome = classify(c, this.deps.registry, this.deps.schemas, bounds);
    return {
      source,
      traceId: c.traceId,
      spanId: c.spanId,
      ...(c.callId ? { callId: c.callId } : {}),
      service: c.service,
      model: c.model,
      name: c.name,
      args: c.args,
      timeMs: c.timeMs || now,
      outcome,
      ...(c.schemaFrom ? { schemaFrom: c.schemaFrom } : {}),
      fromExecution: c.fromExecution,
      ...(c.scope !== undefined ? { scope: c.scope, scopeVersion: c.scopeVersion ?? '' } : {}),
    };
  }
}
