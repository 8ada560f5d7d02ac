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

  /**
   * Built field by field in the order a spread-built object had (callId, schemaFrom, scope only when
   * set), without a temporary object per optional field: one object per checked call.
   */
  check(c: CallToCount, source: SourceName, now: number, bounds: CheckBounds): CheckedCall {
    const outcome = classify(c, this.deps.registry, this.deps.schemas, bounds);
    const out = { source, traceId: c.traceId, spanId: c.spanId } as CheckedCall;
    if (c.callId) out.callId = c.callId;
    out.service = c.service;
    out.model = c.model;
    out.name = c.name;
    out.args = c.args;
    out.timeMs = c.timeMs || now;
    out.outcome = outcome;
    if (c.schemaFrom) out.schemaFrom = c.schemaFrom;
    out.fromExecution = c.fromExecution;
    if (c.scope !== undefined) {
      out.scope = c.scope;
      out.scopeVersion = c.scopeVersion ?? '';
    }
    return out;
  }
}
