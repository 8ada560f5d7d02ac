import { downstreamStatus, worse } from '../normalize/exec-status.js';
import { num } from '../util/values.js';
import { callEntry } from './ledger.js';
import { HeldRing } from './held-ring.js';
const keyOf = (traceId, spanId) => `${traceId}\u0000${spanId}`;
/**
 * Held executions wait in arrival order in a ring (no key, no index: most traffic has no failing child
 * at all). Failing children go to a small map by (trace, parent span), looked up when their parent is
 * added and again when it is released; so the cost of finding a parent is paid only while there are
 * failing children.
 */
export class ExecutionHold {
    opts;
    queue = new HeldRing();
    /** Past their status grace, still waiting for their call to be counted. */
    waiting = [];
    /** Failing children by parent key, oldest first. */
    children = new Map();
    constructor(opts) {
        this.opts = opts;
    }
    get size() {
        return this.queue.length + this.waiting.length;
    }
    get waitingChildren() {
        return this.children.size;
    }
    /**
     * Holds a committed batch's execution (copied into the ring; its `dueMs` is set here); a failing
     * child that came first sets its status now.
     */
    add(h, nowMs, failed) {
        if (failed)
            Object.assign(h, failed);
        if (this.children.size > 0) {
            const key = keyOf(h.traceId, h.spanId);
            const child = this.children.get(key);
            if (child) {
                const status = worse(h.status, child.status);
                if (status !== h.status)
                    (h.httpStatus = child.httpStatus), (h.errorType = undefined);
                h.status = status;
                this.children.delete(key);
            }
        }
        h.dueMs = nowMs + this.opts.statusGraceMs;
        this.queue.push(h);
    }
    /** A committed batch's failing client span: remembered for its parent, held or still to come. */
    child(c, nowMs) {
        const key = keyOf(c.traceId, c.parentSpanId);
        const known = this.children.get(key);
        if (known) {
            const status = worse(known.status, c.status);
            if (status !== known.status)
                known.httpStatus = c.httpStatus;
            known.status = status;
            return;
        }
        this.forgetChildren(nowMs);
        while (this.children.size >= this.opts.maxChildren)
            this.children.delete(this.children.keys().next().value);
        this.children.set(key, { status: c.status, httpStatus: c.httpStatus, atMs: nowMs });
    }
    /**
     * Removes and returns the executions to count at nowMs: past their status grace and with their call
     * counted (or, a `callWaitMs` later, with an `unknown` call outcome). `all`: every one (shutdown).
     */
    takeDue(nowMs, all = false) {
        const out = [];
        const stillWaiting = [];
        // A put-back execution (spanId '': its write failed) was ready before: it is ready again.
        const ready = (h) => all || !h.entry || h.spanId === '' || h.entry.outcome !== undefined || h.dueMs + this.opts.callWaitMs <= nowMs;
        for (const h of this.waiting) {
            if (ready(h))
                out.push(this.release(h));
            else
                stillWaiting.push(h);
        }
        const q = this.queue;
        const lateChild = (traceId, spanId) => this.takeChild(traceId, spanId);
        for (let due = q.firstDue(); due !== undefined && (all || due <= nowMs); due = q.firstDue()) {
            const entry = q.firstEntry();
            if (all || !entry || entry.outcome !== undefined || due + this.opts.callWaitMs <= nowMs)
                out.push(q.release(lateChild));
            else
                stillWaiting.push(q.shift());
        }
        this.waiting = stillWaiting;
        this.forgetChildren(nowMs);
        return out;
    }
    /** Puts executions back after their write failed: the next round counts them (their children were applied). */
    restore(items, nowMs) {
        for (const r of items) {
            const entry = callEntry(r.tool, undefined, false, true, false);
            if (r.callOutcome !== 'unknown')
                entry.outcome = r.callOutcome;
            entry.model = r.model;
            const { source, traceId, service, tool, status, durationMs, timeMs } = r;
            this.waiting.push({
                source,
                traceId,
                spanId: '',
                service,
                tool,
                status,
                durationMs,
                timeMs,
                entry,
                dueMs: nowMs,
                httpStatus: r.httpStatus,
                errorType: r.errorType,
                args: r.args,
                result: r.result,
            });
        }
    }
    /** What the children that came for this span while it was held said (removed); undefined when none. */
    takeChild(traceId, spanId) {
        if (this.children.size === 0 || spanId === '')
            return undefined;
        const key = keyOf(traceId, spanId);
        const child = this.children.get(key);
        if (!child)
            return undefined;
        this.children.delete(key);
        return child;
    }
    /** Its children that came while it was held set its final status. */
    release(h) {
        const late = this.takeChild(h.traceId, h.spanId);
        const status = late ? worse(h.status, late.status) : h.status;
        const outcome = h.entry?.outcome;
        const r = {
            source: h.source,
            traceId: h.traceId,
            service: h.service,
            model: h.entry?.model ?? '',
            tool: h.tool,
            status,
            callOutcome: outcome ?? 'unknown',
            durationMs: h.durationMs,
            timeMs: h.timeMs,
            dueMs: h.dueMs,
        };
        if (status !== 'ok') {
            const fromChild = status !== h.status && late;
            r.spanId = h.spanId;
            const http = fromChild ? late.httpStatus : h.httpStatus;
            if (http !== undefined)
                r.httpStatus = http;
            if (!fromChild && h.errorType !== undefined)
                r.errorType = h.errorType;
            if (h.args !== undefined)
                r.args = h.args;
            if (h.result !== undefined)
                r.result = h.result;
        }
        return r;
    }
    forgetChildren(nowMs) {
        for (const [key, c] of this.children) {
            if (nowMs - c.atMs <= this.opts.childTtlMs)
                break;
            this.children.delete(key);
        }
    }
}
/** The failing HTTP/RPC client spans of a batch (a kind and a lookup or two per span); undefined when none. */
export function childStatuses(spans) {
    let out;
    for (const s of spans) {
        if (s.kind !== 3)
            continue;
        const status = downstreamStatus(s);
        if (!status)
            continue;
        const c = { traceId: s.traceId, parentSpanId: s.parentSpanId, status };
        const http = num(s.attributes, 'http.response.status_code') ?? num(s.attributes, 'http.status_code');
        if (http !== undefined)
            c.httpStatus = http;
        (out ??= []).push(c);
    }
    return out;
}
//# sourceMappingURL=executions.js.map