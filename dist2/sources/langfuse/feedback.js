import { parseFeedbackValue } from '../../feedback/value.js';
import { LangfuseHttpError } from './api.js';
import { langfuseRequest } from './request.js';
/** Scores per page: both score endpoints answer 400 above 100. */
const SCORE_PAGE = 100;
/**
 * A feedback score's value in [-1, 1]: BOOLEAN true/1 → 1, false/0 → -1; NUMERIC as is (`signed`)
 * or 0…1 stretched to -1…1 (`unit`); CATEGORICAL through the thumbs vocabulary ("up", "down",
 * "positive", 👎 …). Undefined when it cannot be read.
 */
export function scoreValue(s, numeric) {
    const type = s.dataType.toUpperCase();
    if (type === 'BOOLEAN') {
        if (typeof s.value === 'boolean')
            return s.value ? 1 : -1;
        if (s.value === 1 || s.value === 0)
            return s.value === 1 ? 1 : -1;
        const text = (s.stringValue ?? '').toLowerCase();
        return text === 'true' ? 1 : text === 'false' ? -1 : undefined;
    }
    if (type === 'NUMERIC') {
        if (typeof s.value !== 'number' || !Number.isFinite(s.value))
            return undefined;
        if (numeric === 'unit')
            return s.value >= 0 && s.value <= 1 ? 2 * s.value - 1 : undefined;
        return s.value >= -1 && s.value <= 1 ? s.value : undefined;
    }
    if (type === 'CATEGORICAL')
        return parseFeedbackValue(typeof s.value === 'string' ? s.value : (s.stringValue ?? undefined));
    return undefined;
}
export class LangfuseFeedbackPull {
    deps;
    opts;
    mode;
    constructor(deps, opts) {
        this.deps = deps;
        this.opts = opts;
    }
    get apiMode() {
        return this.mode ?? 'v3';
    }
    /**
     * Every closed window of score timestamps up to now − lag; the watermark moves after each stored
     * window. `scores`: distinct feedback scores read; `taken`: those that were new or changed a stored
     * value (a score read again in the overlap is not taken twice).
     */
    async runOnce() {
        const { deps, opts } = this;
        const out = { windows: 0, scores: 0, taken: 0 };
        const read = new Set();
        if (opts.names.length === 0)
            return out;
        const st = await deps.state.feedbackState();
        this.mode ??= st.mode;
        const end = deps.clock() - opts.lagMs;
        let wm = st.watermarkMs;
        while ((wm ?? -Infinity) < end) {
            const first = wm === null;
            const from = first ? end - opts.initialLookbackMs : wm - opts.overlapMs;
            const to = Math.min(end, (first ? from : wm) + opts.maxWindowMs);
            if (to <= from)
                break;
            const scores = (await this.window(from, to)).filter((s) => !read.has(s.id));
            for (const s of scores)
                read.add(s.id);
            const items = [];
            let noTrace = 0;
            let unreadable = 0;
            for (const s of scores) {
                if (!s.traceId) {
                    noTrace++;
                    continue;
                }
                const value = scoreValue(s, opts.numeric);
                const t = Date.parse(s.timestamp);
                if (value === undefined || !Number.isFinite(t)) {
                    unreadable++;
                    continue;
                }
                items.push({
                    traceId: s.traceId,
                    value,
                    ...(s.comment ? { comment: s.comment.slice(0, 2000) } : {}),
                    source: 'langfuse',
                    timeMs: t,
                    origin: 'langfuse',
                });
            }
            // Oldest first: of two scores for one trace, the later one wins.
            items.sort((a, b) => a.timeMs - b.timeMs);
            const taken = items.length ? (await deps.feedback.record(items, opts.service)).counted.length : 0;
            if (noTrace)
                deps.feedback.ignored('langfuse', 'no_trace', noTrace);
            if (unreadable)
                deps.feedback.ignored('langfuse', 'bad_value', unreadable);
            await deps.state.completeFeedbackWindow({
                watermarkMs: to,
                mode: this.apiMode,
                scores: taken,
                nowMs: deps.clock(),
            });
            wm = to;
            out.windows++;
            out.scores += scores.length;
            out.taken += taken;
        }
        return out;
    }
    async window(from, to) {
        const q = {
            fromTimestamp: new Date(from).toISOString(),
            toTimestamp: new Date(to).toISOString(),
            limit: SCORE_PAGE,
        };
        if (this.apiMode === 'v3') {
            try {
                return await this.pagesV3(q);
            }
            catch (err) {
                if (!(err instanceof LangfuseHttpError && err.status === 404))
                    throw err;
                this.deps.log.warn('langfuse: GET /api/public/v3/scores answered 404; reading feedback from /api/public/v2/scores from now on');
                this.mode = 'v2';
            }
        }
        const out = [];
        for (const name of this.opts.names) {
            for (let page = 1;; page++) {
                const res = await this.request('v2_scores_read', () => this.deps.api.scoresV2({ ...q, name, page }));
                out.push(...res.data);
                if (page >= res.totalPages || res.data.length === 0)
                    break;
            }
        }
        return out;
    }
    async pagesV3(q) {
        const out = [];
        let cursor;
        for (;;) {
            const page = await this.request('v3_scores_read', () => this.deps.api.scoresV3({ ...q, names: this.opts.names, ...(cursor ? { cursor } : {}) }));
            out.push(...page.data);
            // A repeated cursor would loop forever: treat it as the end.
            if (!page.cursor || page.cursor === cursor || page.data.length === 0)
                return out;
            cursor = page.cursor;
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
}
//# sourceMappingURL=feedback.js.map