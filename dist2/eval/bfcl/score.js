import { checkCall } from '../check.js';
import { modelKey } from '../records.js';
import { rate } from '../score.js';
import { astCheck, bestPairing } from './ast-checker.js';
import { isLive, isRelevanceCategory } from './load.js';
import { fromJs, isDict, loadsPy } from './pyvalue.js';
export const BFCL_REPORT_VERSION = 1;
export function decodeFirstAnswer(o) {
    if (!o)
        return { kind: 'no_answer', reason: 'no record' };
    if (o.kind === 'provider_error')
        return { kind: 'no_answer', reason: `provider error: ${o.code}` };
    // BFCL iterates the message content as if it were calls: "" gives [], any other text raises.
    if (o.kind !== 'tool_calls') {
        const text = o.kind === 'text' ? o.text : o.text;
        return text === '' ? { kind: 'calls', calls: [] } : { kind: 'undecodable', reason: `answered ${o.kind}` };
    }
    const calls = [];
    for (const c of o.calls) {
        let params;
        if (typeof c.arguments === 'string') {
            try {
                params = loadsPy(c.arguments);
            }
            catch (err) {
                return { kind: 'undecodable', reason: `${c.name}: ${err.message}` };
            }
        }
        else if (c.arguments === undefined || c.arguments === null) {
            return { kind: 'undecodable', reason: `${c.name}: no arguments` };
        }
        else
            params = fromJs(c.arguments); // Messages `input`: already parsed, whole numbers read as ints
        calls.push({ name: c.name, params });
    }
    if (!calls.every((c) => isDict(c.params)))
        return { kind: 'wrong_format' };
    return { kind: 'calls', calls };
}
export function scoreEntry(e, outcome) {
    const d = decodeFirstAnswer(outcome);
    const base = { id: e.id, category: e.category };
    if (d.kind === 'no_answer')
        return { ...base, valid: false, errorType: 'no_answer', error: d.reason };
    if (isRelevanceCategory(e.category)) {
        const call = d.kind === 'calls' && d.calls.length > 0;
        if (e.category.includes('irrelevance'))
            return call
                ? { ...base, valid: false, errorType: 'irrelevance_error:decoder_success' }
                : { ...base, valid: true };
        return call ? { ...base, valid: true } : { ...base, valid: false, errorType: 'relevance_error:decoder_failed' };
    }
    if (d.kind === 'undecodable')
        return { ...base, valid: false, errorType: 'ast_decoder:decoder_failed', error: d.reason };
    if (d.kind === 'wrong_format')
        return { ...base, valid: false, errorType: 'ast_decoder:decoder_wrong_output_format' };
    const r = astCheck(e.category, e.functions, d.calls, e.answers ?? []);
    const out = r.valid
        ? { ...base, valid: true }
        : { ...base, valid: false, errorType: r.errorType, error: r.error.join(' ') };
    if (e.category.includes('parallel')) {
        const best = bestPairing(e.functions, d.calls, e.answers ?? []);
        if (best !== r.valid)
            out.bestPairingValid = best;
    }
    return out;
}
function summary(cats, names, weighted, ran) {
    const missing = names.filter((n) => !ran.includes(n));
    const got = cats.filter((c) => names.includes(c.category));
    let value = null;
    if (!missing.length && got.length) {
        value = weighted
            ? got.reduce((s, c) => s + c.valid, 0) / got.reduce((s, c) => s + c.entries, 0)
            : got.reduce((s, c) => s + (c.accuracy.value ?? 0), 0) / got.length;
    }
    return { value, categories: names, missing };
}
/** Per model (label and variant, as the report keys them): BFCL's scores beside toolwatch's byTag. */
export function scoreBfcl(data, results, models, schemas) {
    const byModel = new Map();
    const labels = new Map();
    for (const r of results) {
        const k = modelKey(r.label, r.variant);
        labels.set(k, r.label);
        let m = byModel.get(k);
        if (!m)
            byModel.set(k, (m = new Map()));
        if (r.repeat === 1)
            m.set(r.caseId, r);
    }
    const out = [];
    for (const [key, recs] of byModel) {
        const entries = [];
        const cats = new Map();
        const report = models.find((m) => m.key === key);
        for (const e of data.entries) {
            const rec = recs.get(e.id);
            const first = rec?.turns[0]?.outcome ?? (rec ? rec.outcome : undefined);
            const s = scoreEntry(e, first);
            entries.push(s);
            let c = cats.get(e.category);
            if (!c) {
                const tag = report?.byTag[e.category];
                const scored = !isRelevanceCategory(e.category) || e.category.includes('irrelevance');
                cats.set(e.category, (c = {
                    category: e.category,
                    live: isLive(e.category),
                    entries: 0,
                    valid: 0,
                    accuracy: rate(0, 0),
                    noAnswer: 0,
                    errorTypes: {},
                    greedyPairingRejects: 0,
                    toolwatch: {
                        calls: 0,
                        valid: 0,
                        InvalidJson: 0,
                        UnknownName: 0,
                        SchemaMismatch: 0,
                        unvalidated: 0,
                        selectionAccuracy: scored && tag ? tag.selectionAccuracy : null,
                        argsAccuracy: scored && tag ? tag.argsAccuracy : null,
                        strictPassRate: scored && tag ? tag.strictPassRate : null,
                    },
                }));
            }
            c.entries++;
            if (s.valid)
                c.valid++;
            else
                c.errorTypes[s.errorType ?? 'invalid'] = (c.errorTypes[s.errorType ?? 'invalid'] ?? 0) + 1;
            if (s.errorType === 'no_answer')
                c.noAnswer++;
            if (s.bestPairingValid === true)
                c.greedyPairingRejects++;
            if (first?.kind === 'tool_calls') {
                for (const call of first.calls) {
                    const checked = checkCall(call, e.tools, schemas);
                    c.toolwatch.calls++;
                    c.toolwatch[checked.outcome === 'valid' ? 'valid' : checked.outcome]++;
                }
            }
        }
        const categories = data.categories.filter((x) => cats.has(x)).map((x) => cats.get(x));
        for (const c of categories)
            c.accuracy = rate(c.valid, c.entries);
        const ran = data.categories;
        out.push({
            key,
            label: labels.get(key) ?? key,
            categories,
            summary: {
                nonLiveAst: summary(categories, ['simple_python', 'multiple', 'parallel', 'parallel_multiple'], false, ran),
                liveAst: summary(categories, ['live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple'], true, ran),
                irrelevance: summary(categories, ['irrelevance'], false, ran),
                liveIrrelevance: summary(categories, ['live_irrelevance'], false, ran),
                liveRelevance: summary(categories, ['live_relevance'], false, ran),
            },
            entries,
        });
    }
    return {
        toolwatchBfcl: BFCL_REPORT_VERSION,
        data: data.dir,
        datasetVersion: data.datasetVersion,
        categories: data.categories,
        models: out,
    };
}
//# sourceMappingURL=score.js.map