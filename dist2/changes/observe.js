/**
 * What one batch says about the things that can change under an agent, read from its model spans:
 * per service the model, the provider, the set of tools offered and each tool's definition version.
 * Pure: facts and counted calls in; out the definition versions seen (with the calls attributed to
 * each — the version the call's own request offered) and, per (service, kind, key), the values in
 * time order with repeats collapsed — the transitions the store turns into change events.
 */
import { countedTool, OUTCOMES } from '../model.js';
import { storableText } from '../store/storable-text.js';
import { canonicalText, definitionVersion, toolSetVersion } from '../tools/definition-hash.js';
export const CHANGE_KINDS = ['tool_definition', 'tool_set', 'prompt', 'model', 'provider'];
/** Clipped and storable (storable-text.ts): a NUL in a service or tool name must not fail the batch on PostgreSQL. */
const clipTo = (s, n) => storableText(s.length > n ? s.slice(0, n) : s);
export function observeBatch(facts, calls, limits) {
    const clip = (s) => clipTo(s, limits.maxName);
    const versions = new Map();
    const toolSets = new Map();
    const raw = [];
    /** traceId → spanId → the offered tools by name and the provider, for attributing calls to them. */
    const bySpan = new Map();
    const slots = new Map();
    const remember = (f, service, provider, byName) => {
        let of = slots.get(service);
        if (!of)
            slots.set(service, (of = new Map()));
        let slot = of.get(provider);
        if (!slot)
            of.set(provider, (slot = { service, provider, byTool: new Map() }));
        let spans = bySpan.get(f.traceId);
        if (!spans)
            bySpan.set(f.traceId, (spans = new Map()));
        spans.set(f.spanId, byName ? { byName, slot } : { slot });
    };
    /** Per service, per kind the run of one value, sighted at its earliest and latest time (as below). */
    const valueRuns = new Map();
    const sight = (service, kind, value, t) => {
        let of = valueRuns.get(service);
        if (!of)
            valueRuns.set(service, (of = {}));
        const run = of[kind];
        if (run && run.value === value) {
            if (t < run.first.timeMs)
                run.first.timeMs = t;
            if (t > run.last.timeMs)
                run.last.timeMs = t;
            return;
        }
        const first = { service, kind, key: '', value, timeMs: t };
        const last = { ...first };
        raw.push(first, last);
        of[kind] = { value, first, last };
    };
    const runs = new Map();
    for (const f of facts) {
        const service = clip(f.service);
        const t = Math.floor(f.startTimeMs);
        // Instructions are on the model span, or (Microsoft Agent Framework) on the agent span above it.
        if (f.promptVersion)
            sight(service, 'prompt', f.promptVersion, t);
        if (f.role !== 'model')
            continue;
        if (f.model)
            sight(service, 'model', clip(f.model), t);
        const provider = f.provider ? clip(f.provider) : undefined;
        if (provider)
            sight(service, 'provider', provider, t);
        if (!f.offered) {
            if (provider)
                remember(f, service, provider);
            continue;
        }
        const offered = f.offered.slice(0, limits.maxToolsPerRequest);
        // The requests of one agent offer the same (shared, frozen) definitions one after another: such
        // a run is read once and sighted at its earliest and latest time, not once per request.
        const prev = runs.get(service);
        if (prev && sameDefs(prev.offered, offered)) {
            // Widened once when the run ends (flushRun), not per request and tool.
            if (t < prev.tMin)
                prev.tMin = t;
            if (t > prev.tMax)
                prev.tMax = t;
            remember(f, service, provider ?? '', prev.byName);
            continue;
        }
        if (prev)
            flushRun(prev);
        const setVersion = toolSetVersion(offered);
        if (!toolSets.has(`${service}\u0000${setVersion}`)) {
            const names = [...new Set(offered.map((d) => clip(d.name)))].sort();
            toolSets.set(`${service}\u0000${setVersion}`, { service, version: setVersion, names });
        }
        const byName = new Map();
        const sighted = [{ service, kind: 'tool_set', key: '', value: setVersion }];
        for (const def of offered) {
            const v = seen(versions, service, clip(def.name), def, t);
            sighted.push({ service, kind: 'tool_definition', key: v.tool, value: v.version });
            byName.set(def.name, v);
        }
        const first = sighted.map((x) => ({ ...x, timeMs: t }));
        const last = sighted.map((x) => ({ ...x, timeMs: t }));
        raw.push(...first, ...last);
        runs.set(service, { offered, byName, first, last, tMin: t, tMax: t });
        remember(f, service, provider ?? '', byName);
    }
    for (const r of runs.values())
        flushRun(r);
    // Calls per group (service, tool, version, provider), then per minute and outcome under a number:
    // a few map lookups per call, no key built.
    const groups = [];
    for (const c of calls) {
        if (bySpan.size === 0)
            break;
        const info = bySpan.get(c.traceId)?.get(c.spanId);
        if (!info)
            continue;
        const outcome = c.outcome.outcome;
        const v = info.byName?.get(c.name);
        let group;
        if (v) {
            v.calls++;
            group = v.groups.get(info.slot.provider);
            if (!group) {
                group = {
                    service: v.service,
                    tool: v.tool,
                    version: v.version,
                    provider: info.slot.provider,
                    counts: new Map(),
                };
                v.groups.set(info.slot.provider, group);
                groups.push(group);
            }
        }
        else if (info.slot.provider !== '') {
            const counted = countedTool(outcome, c.name);
            group = info.slot.byTool.get(counted);
            if (!group) {
                const { service, provider } = info.slot;
                group = { service, tool: clip(counted), version: '', provider, counts: new Map() };
                info.slot.byTool.set(counted, group);
                groups.push(group);
            }
        }
        else
            continue;
        const k = Math.floor(c.timeMs / 60_000) * 8 + OUTCOME_INDEX[outcome];
        group.counts.set(k, (group.counts.get(k) ?? 0) + 1);
    }
    const counts = [];
    for (const g of groups)
        for (const [k, count] of g.counts) {
            const { service, tool, version, provider } = g;
            counts.push({
                minute: Math.floor(k / 8) * 60_000,
                service,
                tool,
                version,
                provider,
                outcome: OUTCOME_NAMES[k % 8],
                count,
            });
        }
    return {
        versions: [...versions.values()],
        counts,
        toolSets: [...toolSets.values()],
        sightings: transitions(raw),
    };
}
const OUTCOME_NAMES = OUTCOMES;
const OUTCOME_INDEX = Object.fromEntries(OUTCOMES.map((o, i) => [o, i]));
/** A run's earliest and latest time onto its versions and sightings. */
function flushRun(r) {
    for (const v of r.byName.values()) {
        if (r.tMin < v.firstMs)
            v.firstMs = r.tMin;
        if (r.tMax > v.lastMs)
            v.lastMs = r.tMax;
    }
    if (r.tMin < r.first[0].timeMs)
        for (const x of r.first)
            x.timeMs = r.tMin;
    if (r.tMax > r.last[0].timeMs)
        for (const x of r.last)
            x.timeMs = r.tMax;
}
const sameDefs = (a, b) => a.length === b.length && a.every((d, i) => d === b[i]);
function seen(versions, service, tool, def, t) {
    const version = definitionVersion(def);
    const k = `${service}\u0000${tool}\u0000${version}`;
    let v = versions.get(k);
    if (!v) {
        const definition = canonicalText(def);
        v = { service, tool, version, definition, firstMs: t, lastMs: t, calls: 0, groups: new Map() };
        versions.set(k, v);
    }
    if (t < v.firstMs)
        v.firstMs = t;
    if (t > v.lastMs)
        v.lastMs = t;
    return v;
}
/**
 * Per key, in time order, each value only where it differs from the one before. Most keys hold one
 * value all batch long: those give their earliest sighting without a sort.
 */
function transitions(raw) {
    const byKey = new Map();
    for (const s of raw) {
        const k = `${s.service}\u0000${s.kind}\u0000${s.key}`;
        const list = byKey.get(k);
        if (list)
            list.push(s);
        else
            byKey.set(k, [s]);
    }
    const out = [];
    for (const list of byKey.values()) {
        const first = list[0];
        if (list.every((s) => s.value === first.value)) {
            out.push(list.reduce((a, b) => (b.timeMs < a.timeMs ? b : a)));
            continue;
        }
        // Stable: equal times keep the order the spans came in.
        const sorted = list.map((s, i) => ({ s, i })).sort((a, b) => a.s.timeMs - b.s.timeMs || a.i - b.i);
        let prev;
        for (const { s } of sorted) {
            if (s.value === prev)
                continue;
            out.push(s);
            prev = s.value;
        }
    }
    return out;
}
//# sourceMappingURL=observe.js.map