/**
 * One batch's changes to the dedupe memory (ledger.ts), undone if its store write is refused, and
 * held (`settled`) until then: a resend of the batch waits for the original instead of being taken for
 * a duplicate of something never stored. What it took per trace is its journal record (taken()).
 */
import { CALL, h64, HOLD_SPAN, hashKey, pairOf, SPAN } from './dedupe-hash.js';
import { ANY_SERVICE_SPANS, NONE, OVERFLOWED } from './dedupe-tables.js';
import { ANY_SERVICE, holdKey, pendingKey, } from './ledger.js';
export class LedgerTxn {
    ledger;
    nowMs;
    undoLog = [];
    /** What this batch took, per trace, for its journal record (taken()). */
    takenIn = new Map();
    /** The trace of each call entry this batch reached. */
    located = new Map();
    /** Hold keys (Ledger.holds) this batch set, until commit() or rollback(). */
    held = [];
    /** Entries this batch made live (Ledger.live), let go of when it settles. */
    kept = [];
    done;
    /** Resolves when the batch's store write committed or was refused. */
    settled = new Promise((resolve) => (this.done = resolve));
    constructor(ledger, nowMs) {
        this.ledger = ledger;
        this.nowMs = nowMs;
    }
    hold(traceId, domain, key) {
        const k = holdKey(traceId, domain, key);
        this.ledger.holds.set(k, this);
        this.held.push(k);
    }
    takenOf(traceId) {
        let x = this.takenIn.get(traceId);
        if (!x)
            this.takenIn.set(traceId, (x = { traceId, spans: [], calls: new Set() }));
        return x;
    }
    /** The batch changed this entry: it goes into the journal record in its state at commit. */
    touched(entry) {
        const at = this.located.get(entry);
        if (at !== undefined)
            this.takenOf(at).calls.add(entry);
    }
    /** The object of call slot k, live until this batch settles. */
    keep(k) {
        const live = this.ledger.live;
        let e = live.get(k);
        if (!e) {
            e = this.ledger.entryAt(k);
            live.set(k, e);
            this.kept.push(e);
        }
        return e;
    }
    /** What this batch took, per trace (its record in the dedupe journal); empty when it took nothing. */
    taken() {
        return this.takenIn.values();
    }
    /** Claims a span of a service; false when that service's span was already taken (a resent batch). */
    claimSpan(traceId, spanId, service = '') {
        const { ledger } = this;
        const s = ledger.slot(traceId, this.nowMs, this.undoLog);
        const t = ledger.tables;
        const thi = t.tHi[s];
        const tlo = t.tLo[s];
        hashKey(SPAN, spanId, service);
        const hi = h64[0];
        const lo = h64[1];
        if (t.hasSpan(s, hi, lo))
            return false;
        if (t.tFlags[s] & ANY_SERVICE_SPANS) {
            hashKey(SPAN, spanId, ANY_SERVICE);
            if (t.hasSpan(s, h64[0], h64[1]))
                return false;
        }
        t.addSpan(s, hi, lo);
        this.undoLog.push(() => {
            if (t.holds(s, thi, tlo))
                t.removeSpan(s, hi, lo);
        });
        // Held by span id alone: a span of another service under the same ids waits for this batch, no more.
        this.hold(traceId, HOLD_SPAN, spanId);
        this.takenOf(traceId).spans.push(hi, lo);
        return true;
    }
    /** The batch is durably recorded: what it took is settled. */
    commit() {
        this.release();
    }
    get(traceId, key) {
        const s = this.ledger.slot(traceId, this.nowMs, this.undoLog);
        hashKey(CALL, key);
        const k = this.ledger.tables.findCall(s, h64[0], h64[1]);
        if (k === NONE)
            return undefined;
        const e = this.keep(k);
        this.located.set(e, traceId);
        return e;
    }
    /**
     * Records a call; false past the per-trace cap, where the trace is marked overflowed instead (a
     * proposal is still counted, a tool-span-only call is not: see ledger.ts).
     */
    add(traceId, key, entry) {
        const { ledger } = this;
        const s = ledger.slot(traceId, this.nowMs, this.undoLog);
        const t = ledger.tables;
        const thi = t.tHi[s];
        const tlo = t.tLo[s];
        if (t.tCount[s] >= ledger.maxCallsPerTrace) {
            if (!(t.tFlags[s] & OVERFLOWED)) {
                t.tFlags[s] |= OVERFLOWED;
                this.undoLog.push(() => {
                    if (t.holds(s, thi, tlo))
                        t.tFlags[s] &= ~OVERFLOWED;
                });
                this.takenOf(traceId).overflowed = true;
            }
            return false;
        }
        hashKey(CALL, key);
        const k = ledger.place(s, h64[0], h64[1], entry);
        this.kept.push(entry);
        this.undoLog.push(() => {
            if (!ledger.valid(entry))
                return;
            if (ledger.live.get(k) === entry)
                ledger.live.delete(k);
            t.removeCall(s, k);
            entry.at = NONE;
        });
        this.hold(traceId, CALL, key);
        this.located.set(entry, traceId);
        this.takenOf(traceId).calls.add(entry);
        return true;
    }
    /** The trace's call cap was reached: a tool span of a call the ledger does not know is taken as seen. */
    overflowed(traceId) {
        const s = this.ledger.slot(traceId, this.nowMs, this.undoLog);
        return (this.ledger.tables.tFlags[s] & OVERFLOWED) !== 0;
    }
    /** A proposal arrived for a call known from its tool span: pair them. */
    claimOrphan(entry) {
        const { ledger } = this;
        this.touched(entry);
        entry.fromExecution = false;
        ledger.write(entry);
        this.undoLog.push(() => {
            entry.fromExecution = true;
            ledger.write(entry);
        });
        const p = entry.pending;
        if (p) {
            const k = pendingKey(p.traceId, p.key);
            const held = ledger.pending.get(k);
            ledger.pending.delete(k);
            entry.pending = undefined;
            this.undoLog.push(() => {
                entry.pending = p;
                if (held)
                    ledger.restore([p], this.nowMs);
            });
        }
    }
    /**
     * Changes what a waiting call will be counted as, keeping its due time: a proposal that waits for
     * its tool span's schema takes over an agent span's summary of the same call. Returns the pending
     * call to persist again, undefined when the entry waits for nothing.
     */
    replacePending(entry, call) {
        const p = entry.pending;
        if (!p)
            return undefined;
        this.touched(entry);
        const before = p.call;
        p.call = call;
        this.undoLog.push(() => {
            p.call = before;
        });
        return p;
    }
    /** The calls read from GenAI log records that wait for this span (merge: releaseForSpan). */
    heldForSpan(traceId, spanId) {
        const { ledger } = this;
        if (ledger.live.size === 0)
            return [];
        const s = ledger.known(traceId);
        if (s === NONE)
            return [];
        let out;
        const t = ledger.tables;
        for (let k = t.tCalls[s]; k !== NONE; k = t.cNext[k]) {
            const e = ledger.live.get(k);
            const p = e?.pending;
            if (p === undefined || p.call.heldFor !== 'span' || p.call.spanId !== spanId)
                continue;
            this.located.set(e, traceId);
            (out ??= []).push(e);
        }
        return out ? out.reverse() : [];
    }
    /** Holds a tool-span-only call until its grace period ends. */
    defer(entry, p) {
        const { ledger } = this;
        entry.pending = p;
        p.entry = entry;
        const k = pendingKey(p.traceId, p.key);
        ledger.pending.set(k, { entry, p });
        this.undoLog.push(() => {
            entry.pending = undefined;
            ledger.pending.delete(k);
        });
    }
    markExecuted(entry) {
        if (entry.executed)
            return;
        this.touched(entry);
        entry.executed = true;
        this.ledger.write(entry);
        this.undoLog.push(() => {
            entry.executed = false;
            this.ledger.write(entry);
        });
    }
    /**
     * Finds a counted call of this trace that an id-less sighting belongs to: same name and arguments
     * (by hash, whitespace aside) first, else the oldest by name. Pairing by name alone may swap two
     * parallel calls of one tool, but each is still counted exactly once, which is what the numbers need.
     */
    findUnpaired(traceId, name, argsRaw, want) {
        const { ledger } = this;
        const s = ledger.slot(traceId, this.nowMs, this.undoLog);
        const t = ledger.tables;
        if (t.tCalls[s] === NONE)
            return undefined;
        const wanted = pairOf(name, argsRaw);
        const nh = wanted >>> 10;
        const ah = wanted & 0x3ff;
        let byName;
        for (const k of t.callsOf(s)) {
            if (t.cPair[k] >>> 10 !== nh)
                continue;
            const e = this.keep(k);
            if (!want(e))
                continue;
            if (ah !== 0 && (t.cPair[k] & 0x3ff) === ah) {
                this.located.set(e, traceId);
                return e;
            }
            byName ??= e;
        }
        if (byName)
            this.located.set(byName, traceId);
        return byName;
    }
    rollback() {
        for (let i = this.undoLog.length - 1; i >= 0; i--)
            this.undoLog[i]();
        this.undoLog.length = 0;
        this.release();
    }
    release() {
        const { holds } = this.ledger;
        for (const k of this.held)
            if (holds.get(k) === this)
                holds.delete(k);
        this.held.length = 0;
        for (const e of this.kept)
            this.ledger.release(e);
        this.kept.length = 0;
        this.done();
    }
}
//# sourceMappingURL=ledger-txn.js.map