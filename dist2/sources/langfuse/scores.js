/**
 * Write-back to Langfuse (`langfuse.write_scores`): each checked call's outcome as a categorical
 * score `tool_call_outcome` on its generation, and judge verdicts (`reached_goal`, …) on their
 * trace, so Langfuse users see them in their own UI and alerts.
 *
 * Scores never block ingestion: outcome scores are put in an outbox in the same transaction as
 * the counts (state.ts) and sent by their own job. Every score has a deterministic id —
 * Langfuse upserts by id — so a resend after a lost answer, or after a crash between sending and
 * deleting, updates the same score instead of adding one.
 */
import { createHash } from 'node:crypto';
import { MAX_RETRY_AFTER_MS } from '../../store/outbox.js';
import { LANGFUSE_BACKOFF, toLangfuseError } from './api.js';
import { SCORES_DESTINATION } from './state.js';
export const OUTCOME_SCORE = 'tool_call_outcome';
const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
export function scoreId(...parts) {
    return `tw-${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;
}
function outcomeComment(c) {
    const o = c.outcome;
    switch (o.outcome) {
        case 'InvalidJson':
            return `${c.name}: ${o.message}`;
        case 'UnknownName':
            return `${c.name}: not among the offered tools`;
        case 'SchemaMismatch':
            return `${c.name}: ${o.errors
                .slice(0, 3)
                .map((e) => `${e.instancePath || '/'} ${e.message}`)
                .join('; ')}`;
        case 'unvalidated':
            return `${c.name}: not checked (${o.reason})`;
        default:
            return c.name;
    }
}
/** A checked call → its categorical outcome score, attached to the generation that proposed it. */
export function outcomeScore(c) {
    const key = c.callId ? `id:${c.callId}` : `span:${c.spanId}:${c.name}:${c.args.kind === 'none' ? '' : c.args.raw}`;
    return {
        id: scoreId(OUTCOME_SCORE, c.traceId, key),
        traceId: c.traceId,
        observationId: c.spanId,
        name: OUTCOME_SCORE,
        value: c.outcome.outcome,
        dataType: 'CATEGORICAL',
        comment: clip(outcomeComment(c), 500),
        metadata: {
            tool: c.name,
            ...(c.callId ? { callId: c.callId } : {}),
            ...(c.outcome.outcome === 'unvalidated' ? { reason: c.outcome.reason } : {}),
        },
    };
}
export function verdictScores(v) {
    const values = [];
    if (v.reachedGoal !== undefined)
        values.push(['reached_goal', v.reachedGoal]);
    for (const [k, val] of Object.entries(v.scores ?? {}))
        if (k !== 'reached_goal' || v.reachedGoal === undefined)
            values.push([k, val]);
    return values.map(([name, val]) => {
        const body = {
            id: scoreId('verdict', v.traceId, v.runId ?? '', name),
            traceId: v.traceId,
            name,
            value: typeof val === 'boolean' ? (val ? 1 : 0) : val,
            dataType: typeof val === 'boolean' ? 'BOOLEAN' : typeof val === 'number' ? 'NUMERIC' : 'CATEGORICAL',
            metadata: { source: 'toolwatch-judge' },
        };
        if (v.observationId)
            body.observationId = v.observationId;
        if (v.comment)
            body.comment = clip(v.comment, 500);
        return body;
    });
}
const STATUS = {
    sent: 'sent',
    retried: 'retry',
    failed: 'rejected',
    expired: 'dropped',
};
/**
 * Scores go through the delivery outbox, unordered (Langfuse upserts by id, so order never matters
 * and one refused score holds no other): 429 holds every score for Retry-After (else the backoff);
 * 5xx and timeouts retry that score with backoff until maxAttempts; other 4xx drop it at once.
 */
export class LangfuseScoreWriter {
    deps;
    policy;
    constructor(deps, opts) {
        this.deps = deps;
        this.policy = {
            ordered: false,
            backoff: LANGFUSE_BACKOFF,
            minIntervalMs: 0,
            maxRetryAfterMs: MAX_RETRY_AFTER_MS,
            maxAttempts: opts.maxAttempts,
            keepDone: false,
            perPass: opts.batchSize,
        };
    }
    /** For the judge: queues its verdict's scores; the next flush sends them. Returns how many. */
    async writeVerdictScores(v) {
        const bodies = verdictScores(v);
        await this.deps.state.enqueueScores(bodies, this.deps.clock());
        return bodies.length;
    }
    /** Sends what is due. Never throws on Langfuse errors: they are counted and retried later. */
    async flush() {
        const { deps } = this;
        const result = { sent: 0, retry: 0, rejected: 0, dropped: 0 };
        await deps.state.outbox.deliver(SCORES_DESTINATION, {
            policy: this.policy,
            now: deps.clock,
            send: async (m) => {
                try {
                    await deps.api.createScore(JSON.parse(m.payload));
                    deps.onRequest?.('200');
                    return { kind: 'ok' };
                }
                catch (err) {
                    const e = toLangfuseError(err);
                    deps.onRequest?.(String(e.status));
                    const error = `${e.message} (${e.status})`;
                    if (e.retryable)
                        return {
                            kind: 'retry',
                            error,
                            rateLimited: e.status === 429,
                            ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}),
                        };
                    // 400/401/404…: the same body will be refused again.
                    deps.log.warn({ status: e.status, score: m.id }, 'langfuse: score refused; dropped');
                    return { kind: 'permanent', error };
                }
            },
            report: (_m, status) => {
                result[STATUS[status]]++;
                deps.onScore?.(STATUS[status]);
            },
        });
        return result;
    }
}
/** Scores owed for a langfuse batch's checked calls. */
export function outcomeScores(calls) {
    return calls.map(outcomeScore);
}
/** A judge verdict record → the scores to write; undefined for judge errors (nothing was judged). */
export function fromJudgeVerdict(rec) {
    const v = rec.verdict;
    if (rec.status !== 'ok' || !v)
        return undefined;
    const scores = {};
    if (typeof v.unnecessary_calls === 'number')
        scores['unnecessary_calls'] = v.unnecessary_calls;
    if (typeof v.dangerous_calls === 'number')
        scores['dangerous_calls'] = v.dangerous_calls;
    return {
        traceId: rec.traceId,
        runId: String(rec.runId),
        reachedGoal: v.reached_goal,
        scores,
        ...(v.reasoning ? { comment: v.reasoning } : {}),
    };
}
//# sourceMappingURL=scores.js.map