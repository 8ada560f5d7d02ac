import { isLlmKey, looksLikeLlmSpan } from './llm-looking.js';
import { TopKeys } from './top-keys.js';
export const DEFAULT_COVERAGE_OPTIONS = Object.freeze({
    maxEntries: 256,
    maxEntriesPerBudget: 64,
    keysPerEntry: 64,
    topKeys: 20,
    maxLength: 200,
});
export const OTHER = '_other';
/** `llm.input_messages.3.message.content` → `llm.input_messages.{i}.message.content`. */
export function keyPattern(key, maxLength) {
    const k = hasNumberedSegment(key) ? key.replace(/\.\d+(?=\.|$)/g, '.{i}') : key;
    return k.length > maxLength ? k.slice(0, maxLength) : k;
}
/** A '.' followed by a digit: the only keys the (slower) pattern replace can change. */
function hasNumberedSegment(key) {
    for (let i = key.indexOf('.'); i >= 0 && i < key.length - 1; i = key.indexOf('.', i + 1)) {
        const c = key.charCodeAt(i + 1);
        if (c >= 48 && c <= 57)
            return true;
    }
    return false;
}
function hasCalls(f) {
    return f.proposals.length > 0 || f.execution !== undefined || (f.summaryCalls?.length ?? 0) > 0;
}
export class CoverageTracker {
    entries = new Map();
    options;
    // The spans of one export share their scope and resource strings: the last row found is tried first.
    lastScope;
    lastVersion;
    lastService;
    lastEntry;
    /** Rows opened per restricted sender (as many keys as glob sets). */
    opened = new Map();
    constructor(options = {}) {
        this.options = Object.freeze({ ...DEFAULT_COVERAGE_OPTIONS, ...options });
    }
    /**
     * A received span and what the readers made of it (undefined: no reader recognised it). Returns
     * 'unrecognized' for an LLM-looking span no reader recognised (the caller counts those in a metric).
     */
    observeSpan(span, facts, budget) {
        const e = this.entry(span.scope, span.scopeVersion, span.service, budget);
        e.spans++;
        if (facts === undefined && !looksLikeLlmSpan(span))
            return 'other';
        e.llmSpans++;
        if (facts === undefined)
            e.unrecognizedSpans++;
        else if (hasCalls(facts))
            return 'llm';
        e.llmSpansWithoutCalls++;
        const max = this.options.maxLength;
        for (const k in span.attributes)
            if (isLlmKey(k))
                e.keys.add(keyPattern(k, max));
        return facts === undefined ? 'unrecognized' : 'llm';
    }
    /** A counted call, attributed to the scope and service of the span it was counted from (`budget`: its sender's). */
    observeCall(origin, outcome, budget) {
        const e = this.entry(origin.scope, origin.scopeVersion, origin.service, budget);
        e.calls++;
        if (outcome.outcome === 'unvalidated')
            e.unvalidated[outcome.reason] = (e.unvalidated[outcome.reason] ?? 0) + 1;
    }
    /**
     * Every row, the ones with the most LLM-looking spans first; `service` keeps that service's rows
     * only, `sees` the rows of the services it accepts (a reader restricted to some services).
     */
    report(q = {}) {
        const rows = [];
        const filtered = q.service !== undefined || q.sees !== undefined;
        for (const { keys, unvalidated, ...counts } of this.entries.values()) {
            // The folded row mixes services: it belongs to no one service's report.
            if (filtered && counts.scope === OTHER)
                continue;
            if (q.service !== undefined && counts.service !== q.service)
                continue;
            if (q.sees && !q.sees(counts.service))
                continue;
            rows.push({ ...counts, unvalidated: { ...unvalidated }, topKeys: keys.top(this.options.topKeys) });
        }
        const cmp = (x, y) => (x < y ? -1 : x > y ? 1 : 0);
        return rows.sort((a, b) => b.llmSpans - a.llmSpans ||
            b.spans - a.spans ||
            cmp(a.scope, b.scope) ||
            cmp(a.scopeVersion, b.scopeVersion) ||
            cmp(a.service, b.service));
    }
    /** Rows currently held (at most maxEntries + 1). */
    get size() {
        return this.entries.size;
    }
    entry(scope, scopeVersion, service, budget) {
        if (scope === this.lastScope && scopeVersion === this.lastVersion && service === this.lastService) {
            return this.lastEntry;
        }
        const e = this.find(scope, scopeVersion, service, budget);
        this.lastScope = scope;
        this.lastVersion = scopeVersion;
        this.lastService = service;
        this.lastEntry = e;
        return e;
    }
    find(scope, scopeVersion, service, budget) {
        const max = this.options.maxLength;
        const s = scope.length > max ? scope.slice(0, max) : scope;
        const v = scopeVersion.length > max ? scopeVersion.slice(0, max) : scopeVersion;
        const svc = service.length > max ? service.slice(0, max) : service;
        const key = `${s}\u0000${v}\u0000${svc}`;
        let e = this.entries.get(key);
        if (e)
            return e;
        if (this.entries.size >= this.options.maxEntries)
            return this.other();
        if (budget !== undefined) {
            const opened = this.opened.get(budget) ?? 0;
            if (opened >= this.options.maxEntriesPerBudget)
                return this.other();
            this.opened.set(budget, opened + 1);
        }
        e = this.fresh(s, v, svc);
        this.entries.set(key, e);
        return e;
    }
    other() {
        const key = `${OTHER}\u0000\u0000${OTHER}`;
        let e = this.entries.get(key);
        if (!e) {
            e = this.fresh(OTHER, '', OTHER);
            this.entries.set(key, e);
        }
        return e;
    }
    fresh(scope, scopeVersion, service) {
        return {
            scope,
            scopeVersion,
            service,
            spans: 0,
            llmSpans: 0,
            unrecognizedSpans: 0,
            llmSpansWithoutCalls: 0,
            calls: 0,
            unvalidated: {},
            keys: new TopKeys(this.options.keysPerEntry),
        };
    }
}
//# sourceMappingURL=coverage.js.map