import { observationToFacts } from '../../normalize/langfuse.js';
import { endSpan, startChild } from '../../telemetry/tracing.js';
import { LangfuseHttpError, V2_EXPAND_METADATA, V2_FIELDS } from './api.js';
import { langfuseRequest } from './request.js';
import { outcomeScores } from './scores.js';
const KNOWN_TYPES = new Set([
    'GENERATION',
    'TOOL',
    'AGENT',
    'SPAN',
    'EVENT',
    'CHAIN',
    'RETRIEVER',
    'EVALUATOR',
    'EMBEDDING',
    'GUARDRAIL',
]);
const typeLabel = (t) => KNOWN_TYPES.has(String(t).toUpperCase()) ? String(t).toUpperCase() : 'other';
export class LangfuseSource {
    deps;
    opts;
    mode = 'v2';
    state;
    /** Observation id → start time, for the overlap and the window in progress. */
    seen;
    /** The span of the window in progress (telemetry on). */
    windowSpan;
    constructor(deps, opts) {
        this.deps = deps;
        this.opts = opts;
    }
    get apiMode() {
        return this.mode;
    }
    /** The persisted watermark as last loaded or advanced (null before the first window). */
    get watermarkMs() {
        return this.state?.watermarkMs ?? null;
    }
    /** Syncs every closed window up to now − lag. Throws (after recording it) when a window could not finish. */
    async runOnce() {
        const { deps, opts } = this;
        const result = { windows: 0, observations: 0, duplicates: 0, calls: 0 };
        try {
            this.state ??= await deps.state.load();
            const end = deps.clock() - opts.lagMs;
            let wm = this.state.watermarkMs;
            while ((wm ?? -Infinity) < end) {
                const first = wm === null;
                const from = first ? end - opts.initialLookbackMs : wm - opts.overlapMs;
                const to = Math.min(end, (first ? from : wm) + opts.maxWindowMs);
                if (to <= from)
                    break;
                this.seen ??= await deps.state.seenSince(from);
                const before = { ...result };
                this.windowSpan = deps.tracer
                    ? startChild(deps.tracer, 'langfuse sync window', undefined, {
                        'toolwatch.langfuse.from': new Date(from).toISOString(),
                        'toolwatch.langfuse.to': new Date(to).toISOString(),
                    })
                    : undefined;
                const keepSinceMs = to - opts.overlapMs;
                let failure;
                try {
                    await this.syncWindow(from, to, result);
                    await deps.state.completeWindow({ watermarkMs: to, mode: this.mode, nowMs: deps.clock(), keepSinceMs });
                }
                catch (err) {
                    failure = { err };
                    throw err;
                }
                finally {
                    const span = this.windowSpan;
                    this.windowSpan = undefined;
                    if (span)
                        endSpan(span.setAttributes(windowAttributes(this.mode, before, result)), failure?.err);
                }
                for (const [id, start] of this.seen)
                    if (start < keepSinceMs)
                        this.seen.delete(id);
                this.state.watermarkMs = wm = to;
                result.windows++;
            }
            return result;
        }
        catch (err) {
            const message = err instanceof LangfuseHttpError ? `${err.message} (${err.status})` : String(err?.message ?? err);
            await deps.state.recordError(message.slice(0, 500), this.mode, deps.clock()).catch(() => undefined);
            if (this.state)
                (this.state.lastError = message), (this.state.lastErrorMs = deps.clock());
            throw err;
        }
    }
    /** Pages one window to its end; TOOL observations go last, after the generations that proposed their calls. */
    async syncWindow(from, to, result) {
        const heldTools = new Map();
        const take = async (page) => {
            const fresh = [];
            const inPage = new Set();
            let dups = 0;
            for (const o of page) {
                if (typeof o?.id !== 'string' || this.seen.has(o.id) || inPage.has(o.id) || heldTools.has(o.id)) {
                    dups++;
                    continue;
                }
                inPage.add(o.id);
                // Newest first puts a tool before the generation that proposed it: hold tools to the window's
                // end, so the proposal (with its offered tools) is what gets classified.
                if (String(o.type).toUpperCase() === 'TOOL')
                    heldTools.set(o.id, o);
                else
                    fresh.push(o);
            }
            if (dups) {
                result.duplicates += dups;
                this.deps.onDuplicates?.(dups);
            }
            await this.ingestObservations(fresh, from, result);
        };
        for (;;) {
            try {
                if (this.mode === 'v2')
                    await this.pagesV2(from, to, take);
                else
                    await this.pagesV1(from, to, take);
                break;
            }
            catch (err) {
                if (this.mode === 'v2' && err instanceof LangfuseHttpError && err.status === 404) {
                    this.deps.log.warn('langfuse: GET /api/public/v2/observations answered 404; using the legacy /api/public/observations from now on');
                    this.mode = 'v1';
                    continue; // the same window again, page-based; what v2 delivered is deduplicated
                }
                throw err;
            }
        }
        const tools = [...heldTools.values()];
        for (let i = 0; i < tools.length; i += this.opts.pageSize)
            await this.ingestObservations(tools.slice(i, i + this.opts.pageSize), from, result);
    }
    async pagesV2(from, to, take) {
        const q = {
            fromStartTime: new Date(from).toISOString(),
            toStartTime: new Date(to).toISOString(),
            limit: this.opts.pageSize,
            fields: V2_FIELDS,
            expandMetadata: V2_EXPAND_METADATA,
        };
        let cursor;
        for (;;) {
            const page = await this.request('v2_observations', () => this.deps.api.observationsV2(cursor ? { ...q, cursor } : q));
            await take(page.data);
            // A repeated cursor would loop forever: treat it as the end.
            if (!page.cursor || page.cursor === cursor || page.data.length === 0)
                return;
            cursor = page.cursor;
        }
    }
    async pagesV1(from, to, take) {
        const q = {
            fromStartTime: new Date(from).toISOString(),
            toStartTime: new Date(to).toISOString(),
            limit: this.opts.pageSize,
        };
        for (let page = 1;; page++) {
            const res = await this.request('v1_observations', () => this.deps.api.observationsV1({ ...q, page }));
            await take(res.data);
            if (page >= res.totalPages || res.data.length === 0)
                return;
        }
    }
    request(endpoint, fn) {
        const { deps } = this;
        return langfuseRequest(endpoint, fn, {
            maxAttempts: this.opts.maxAttempts,
            sleep: deps.sleep,
            log: deps.log,
            ...(deps.onRequest ? { onRequest: deps.onRequest } : {}),
        });
    }
    /** One pipeline batch; the ids taken (and owed scores) commit in the same transaction as the counts. */
    async ingestObservations(obs, from, result) {
        if (obs.length === 0)
            return;
        const { deps, opts } = this;
        const facts = [];
        const ids = [];
        for (const o of obs) {
            const f = observationToFacts(o, { service: opts.service });
            if (f)
                facts.push(f);
            const start = Date.parse(o.startTime);
            ids.push({ id: o.id, startMs: Number.isFinite(start) ? start : from });
        }
        const now = deps.clock();
        const summary = await deps.ingest(facts, obs.length, (calls) => [deps.state.batchExtension(ids, calls.length, opts.writeScores ? outcomeScores(calls) : [], now)], this.windowSpan);
        for (const s of ids)
            this.seen.set(s.id, s.startMs);
        while (this.seen.size > opts.maxSeen)
            this.seen.delete(this.seen.keys().next().value);
        const byType = new Map();
        for (const o of obs)
            byType.set(typeLabel(o.type), (byType.get(typeLabel(o.type)) ?? 0) + 1);
        for (const [t, n] of byType)
            deps.onObservations?.(t, n);
        result.observations += obs.length;
        result.calls += summary.calls;
        if (this.state)
            (this.state.observations += obs.length), (this.state.calls += summary.calls);
    }
}
/** The `langfuse sync window` span's attributes: what this window read and counted. */
function windowAttributes(mode, before, after) {
    return {
        'toolwatch.langfuse.api': mode,
        'toolwatch.langfuse.observations': after.observations - before.observations,
        'toolwatch.langfuse.duplicates': after.duplicates - before.duplicates,
        'toolwatch.calls': after.calls - before.calls,
    };
}
//# sourceMappingURL=source.js.map