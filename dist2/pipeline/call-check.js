import { CompileBudget, DEFAULT_CHECK_LIMITS } from '../check/budget.js';
import { classify } from '../check/classify.js';
export class CallChecker {
    deps;
    limits;
    compiles;
    constructor(deps) {
        this.deps = deps;
        this.limits = deps.check ?? DEFAULT_CHECK_LIMITS;
        this.compiles = new CompileBudget(this.limits);
    }
    /** What one batch's checking may cost, from now: its compile allowance and its validation deadline. */
    bounds(token) {
        const deadlineMs = performance.now() + this.limits.validationTimePerBatchMs;
        return { limits: this.limits, compiles: this.compiles.forBatch(token), deadlineMs };
    }
    check(c, source, now, bounds) {
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
//# sourceMappingURL=call-check.js.map