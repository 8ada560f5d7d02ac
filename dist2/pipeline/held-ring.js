import { worse } from '../normalize/exec-status.js';
const STATUS_CODES = ['ok', 'client_error', 'server_error', 'error', 'tool_error'];
const SOURCE_CODES = ['otlp', 'langfuse'];
const FIRST_CAPACITY = 1024;
/**
 * The executions in their status grace, in arrival order (which is due order: the grace is constant),
 * as a ring of columns — typed arrays for numbers and codes, plain arrays for the strings and entries —
 * rather than an object each: at tens of thousands of executions a second, each held for seconds, that
 * keeps them out of the garbage collector's work.
 */
export class HeldRing {
    cap = 0;
    start = 0;
    length = 0;
    source = new Uint8Array(0);
    status = new Uint8Array(0);
    durationMs = new Float64Array(0);
    timeMs = new Float64Array(0);
    dueMs = new Float64Array(0);
    traceId = [];
    spanId = [];
    service = [];
    tool = [];
    entry = [];
    httpStatus = new Uint16Array(0);
    errorType = [];
    args = [];
    result = [];
    push(h) {
        if (this.length === this.cap)
            this.grow();
        const i = (this.start + this.length) % this.cap;
        this.source[i] = SOURCE_CODES.indexOf(h.source);
        this.status[i] = STATUS_CODES.indexOf(h.status);
        this.durationMs[i] = h.durationMs;
        this.timeMs[i] = h.timeMs;
        this.dueMs[i] = h.dueMs;
        this.traceId[i] = h.traceId;
        this.spanId[i] = h.spanId;
        this.service[i] = h.service;
        this.tool[i] = h.tool;
        this.entry[i] = h.entry;
        this.httpStatus[i] = h.httpStatus ?? 0;
        this.errorType[i] = h.errorType;
        this.args[i] = h.args;
        this.result[i] = h.result;
        this.length++;
    }
    /** The due time of the oldest; undefined when empty. */
    firstDue() {
        return this.length === 0 ? undefined : this.dueMs[this.start];
    }
    /** The oldest's call entry. */
    firstEntry() {
        return this.entry[this.start];
    }
    /** Removes the oldest and returns it counted, its status made worse by `child` (a late child's). */
    release(child) {
        const i = this.start;
        const entry = this.entry[i];
        const traceId = this.traceId[i];
        const spanId = this.spanId[i];
        const own = STATUS_CODES[this.status[i]];
        const late = child(traceId, spanId);
        const status = late ? worse(own, late.status) : own;
        const r = {
            source: SOURCE_CODES[this.source[i]],
            traceId,
            service: this.service[i],
            model: entry?.model ?? '',
            tool: this.tool[i],
            status,
            callOutcome: entry?.outcome ?? 'unknown',
            durationMs: this.durationMs[i],
            timeMs: this.timeMs[i],
            dueMs: this.dueMs[i],
        };
        if (status !== 'ok') {
            r.spanId = spanId;
            const fromChild = status !== own && late;
            const http = fromChild ? late.httpStatus : this.httpStatus[i] || undefined;
            if (http !== undefined)
                r.httpStatus = http;
            const type = fromChild ? undefined : this.errorType[i];
            if (type !== undefined)
                r.errorType = type;
            const args = this.args[i];
            if (args !== undefined)
                r.args = args;
            const result = this.result[i];
            if (result !== undefined)
                r.result = result;
        }
        this.clear(i);
        this.start = (this.start + 1) % this.cap;
        this.length--;
        return r;
    }
    /** Lets go of what the slot references. */
    clear(i) {
        this.entry[i] = undefined;
        this.errorType[i] = undefined;
        this.args[i] = undefined;
        this.result[i] = undefined;
    }
    /** Removes the oldest and returns it as an object (short-lived: released or moved to the waiting list). */
    shift() {
        const i = this.start;
        const h = {
            source: SOURCE_CODES[this.source[i]],
            traceId: this.traceId[i],
            spanId: this.spanId[i],
            service: this.service[i],
            tool: this.tool[i],
            status: STATUS_CODES[this.status[i]],
            durationMs: this.durationMs[i],
            timeMs: this.timeMs[i],
            entry: this.entry[i],
            dueMs: this.dueMs[i],
            httpStatus: this.httpStatus[i] || undefined,
            errorType: this.errorType[i],
            args: this.args[i],
            result: this.result[i],
        };
        this.clear(i);
        this.start = (this.start + 1) % this.cap;
        this.length--;
        return h;
    }
    grow() {
        const cap = Math.max(FIRST_CAPACITY, this.cap * 2);
        const order = (n) => Array.from({ length: this.length }, (_, k) => (this.start + k) % n);
        const idx = this.cap ? order(this.cap) : [];
        const u8 = (a) => {
            const b = new Uint8Array(cap);
            for (let k = 0; k < idx.length; k++)
                b[k] = a[idx[k]];
            return b;
        };
        const f64 = (a) => {
            const b = new Float64Array(cap);
            for (let k = 0; k < idx.length; k++)
                b[k] = a[idx[k]];
            return b;
        };
        const arr = (a) => idx.map((from) => a[from]);
        this.source = u8(this.source);
        this.status = u8(this.status);
        this.httpStatus = (() => {
            const b = new Uint16Array(cap);
            for (let k = 0; k < idx.length; k++)
                b[k] = this.httpStatus[idx[k]];
            return b;
        })();
        this.errorType = arr(this.errorType);
        this.args = arr(this.args);
        this.result = arr(this.result);
        this.durationMs = f64(this.durationMs);
        this.timeMs = f64(this.timeMs);
        this.dueMs = f64(this.dueMs);
        this.traceId = arr(this.traceId);
        this.spanId = arr(this.spanId);
        this.service = arr(this.service);
        this.tool = arr(this.tool);
        this.entry = arr(this.entry);
        this.start = 0;
        this.cap = cap;
    }
}
//# sourceMappingURL=held-ring.js.map