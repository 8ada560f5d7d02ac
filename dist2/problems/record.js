import { storableText } from '../store/storable-text.js';
import { signatureOf } from './signature.js';
import { repairExtension } from './cost.js';
import { problemExtension } from './store.js';
import { isOnceSlot, KnownRows, slotKey } from './known-rows.js';
const HOUR = 3_600_000;
const MAX_ARGS = 16 * 1024;
const MAX_MESSAGE = 2_000;
/** Signatures looked up per read after a commit. */
const LOOKUP_CHUNK = 100;
/**
 * Hooks into the pipeline (CountedCallSink): one extension per batch with failed calls, per settle
 * round with failed executions, and per write of completed trajectories that had repair turns.
 */
export class ProblemRecorder {
    deps;
    /** What is stored already and need not be built nor written again (known-rows.ts). */
    known = new KnownRows();
    /** The lookups under way (`settled()` waits for them). */
    lookups = Promise.resolve();
    constructor(deps) {
        this.deps = deps;
    }
    extension(calls, labels, facts) {
        return this.write(problemDeltas(calls, labels, facts, { ...this.deps, known: this.known }));
    }
    executions(released) {
        return this.write(executionDeltas(released, { ...this.deps, known: this.known }));
    }
    trajectories(done) {
        return repairExtension(done);
    }
    /** A write of ours committed: its once-slots are stored; signatures new to us are looked up. */
    committed(write) {
        const unknown = this.known.committed(write);
        const all = this.deps.sql.all?.bind(this.deps.sql);
        if (unknown.length === 0 || !all)
            return;
        this.lookups = this.lookups.then(async () => {
            for (let i = 0; i < unknown.length; i += LOOKUP_CHUNK) {
                const chunk = unknown.slice(i, i + LOOKUP_CHUNK);
                // A failed read only means the rows are written in full a while longer.
                const rows = await all(`SELECT service, id FROM problems WHERE ${chunk.map(() => '(service = ? AND id = ?)').join(' OR ')}`, chunk.flatMap((r) => [r.service, r.id])).catch(() => []);
                this.known.seen(rows.map((r) => ({ service: String(r.service), id: String(r.id) })));
            }
        });
    }
    /** Resolves when the lookups started so far are done. */
    settled() {
        return this.lookups;
    }
    write({ deltas, carried }) {
        if (deltas.length === 0)
            return undefined;
        for (const d of deltas)
            if (this.known.hasRow(d.service, d.signature.hash))
                d.stored = true;
            else
                carried.rows.push({ service: d.service, id: d.signature.hash });
        const write = problemExtension(deltas, {
            dialect: this.deps.sql.dialect,
            maxPerService: this.deps.maxPerService,
            nowMs: (this.deps.now ?? Date.now)(),
        });
        this.known.carry(write, carried);
        return write;
    }
}
/** Groups failures by (service, signature); each slot's example is built once, after grouping. */
class Grouper {
    out = new Map();
    picks = new Map();
    add(signature, service, model, timeMs, item) {
        const key = `${service}\u0000${signature.hash}`;
        const t = Math.floor(timeMs);
        let d = this.out.get(key);
        if (!d) {
            d = {
                signature,
                service,
                occurrences: 0,
                firstMs: t,
                lastMs: t,
                hours: new Map(),
                models: new Map(),
                examples: new Map(),
            };
            this.out.set(key, d);
        }
        d.occurrences++;
        d.firstMs = Math.min(d.firstMs, t);
        d.lastMs = Math.max(d.lastMs, t);
        const hour = t - (t % HOUR);
        d.hours.set(hour, (d.hours.get(hour) ?? 0) + 1);
        const m = d.models.get(model);
        if (m) {
            m.count++;
            m.firstMs = Math.min(m.firstMs, t);
            m.lastMs = Math.max(m.lastMs, t);
        }
        else
            d.models.set(model, { count: 1, firstMs: t, lastMs: t });
        // Which failure fills each example slot.
        let slots = this.picks.get(d);
        if (!slots)
            this.picks.set(d, (slots = new Map()));
        const first = slots.get('first');
        if (first === undefined || t < first.t)
            slots.set('first', { item, t });
        const latest = slots.get('latest');
        if (latest === undefined || t >= latest.t)
            slots.set('latest', { item, t });
        if (!slots.has(`model:${model}`))
            slots.set(`model:${model}`, { item, t });
    }
    /** The deltas with their examples; a once-written slot known stored is left out. */
    deltas(example, known) {
        const carried = { slots: [], rows: [] };
        for (const [d, slots] of this.picks) {
            const built = new Map();
            for (const [slot, { item }] of slots) {
                if (known && isOnceSlot(slot)) {
                    const key = slotKey(d.service, d.signature.hash, slot);
                    if (known.hasSlot(key))
                        continue;
                    carried.slots.push(key);
                }
                let ex = built.get(item);
                if (!ex)
                    built.set(item, (ex = example(item)));
                d.examples.set(slot, { ...ex, slot });
            }
        }
        return { deltas: [...this.out.values()], carried };
    }
}
/**
 * The checked calls' failures grouped by (service, signature). Each failed call is told its
 * signature's hash (`problemId`): the trajectory tracker files its repair turns under it.
 */
export function problemDeltas(calls, labels, facts, deps) {
    let bySpan;
    const group = new Grouper();
    for (let i = 0; i < calls.length; i++) {
        const c = calls[i];
        const o = c.outcome;
        if (o.outcome !== 'InvalidJson' && o.outcome !== 'UnknownName' && o.outcome !== 'SchemaMismatch')
            continue;
        const { service, model, tool } = labels[i];
        if (o.outcome === 'SchemaMismatch' && !bySpan) {
            bySpan = new Map();
            for (const f of facts)
                bySpan.set(f.spanId, f);
        }
        const signature = o.outcome === 'SchemaMismatch'
            ? signatureOf({ kind: o.outcome, service, tool, errors: o.errors, schema: schemaOf(c, bySpan, deps) })
            : o.outcome === 'UnknownName'
                ? signatureOf({ kind: o.outcome, service, name: storableText(c.name.slice(0, 200)) })
                : signatureOf({ kind: o.outcome, service, tool, cause: o.cause });
        c.problemId = signature.hash;
        group.add(signature, service, model, c.timeMs, i);
    }
    return group.deltas((i) => example(calls[i], labels[i].model, deps.redactor), deps.known);
}
/**
 * Failed executions (any status but ok: client_error, server_error, error, tool_error) grouped by
 * (service, signature); the released executions carry the capped labels they are counted under.
 */
export function executionDeltas(released, deps) {
    const group = new Grouper();
    for (const e of released) {
        if (e.status === 'ok')
            continue;
        const signature = signatureOf({
            kind: 'execution',
            service: e.service,
            tool: e.tool,
            status: e.status,
            ...(e.httpStatus !== undefined ? { httpStatus: e.httpStatus } : {}),
            ...(e.errorType !== undefined ? { errorType: e.errorType } : {}),
        });
        e.problemId = signature.hash;
        group.add(signature, e.service, e.model, e.timeMs, e);
    }
    return group.deltas((e) => executionExample(e, deps.redactor), deps.known);
}
/** The schema the call was checked against: its span's offered definition, else the registry's. */
function schemaOf(c, bySpan, deps) {
    const offered = bySpan.get(c.spanId)?.offered?.find((t) => t.name === c.name)?.parameters;
    return offered ?? deps.registrySchema?.(c.service, c.name);
}
/** A failed execution's example: its arguments, and what it answered (both masked like stored failures). */
function executionExample(e, redactor) {
    const args = e.args !== undefined ? redactor.json(e.args.slice(0, MAX_ARGS * 2)) : undefined;
    const detail = e.httpStatus !== undefined ? `HTTP ${e.httpStatus}` : (e.errorType ?? '');
    const head = `${e.status}${detail ? `: ${detail}` : ''}`;
    const result = e.result !== undefined ? masked(e.result.slice(0, MAX_MESSAGE * 2), redactor) : undefined;
    const text = result === undefined ? head : `${head} — ${result.ok ? result.value : `[result not stored: ${result.reason}]`}`;
    return {
        timeMs: Math.floor(e.timeMs),
        model: e.model,
        traceId: storableText(e.traceId.slice(0, 200)),
        spanId: storableText((e.spanId ?? '').slice(0, 200)),
        name: storableText(e.tool.slice(0, 1000)),
        ...(args?.ok ? { arguments: storableText(args.value.slice(0, MAX_ARGS)) } : {}),
        message: storableText(text.slice(0, MAX_MESSAGE)),
    };
}
/** A result as text: JSON masked by key (secret-named fields), anything else as free text. */
function masked(result, redactor) {
    const trimmed = result.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
        const j = redactor.json(result);
        if (j.ok)
            return j;
    }
    return redactor.text(result);
}
/** An example as a stored failure keeps it: arguments and parse errors masked by the store redactor. */
function example(c, model, redactor) {
    const o = c.outcome;
    const args = c.args.kind !== 'none' ? redactor.json(c.args.raw.slice(0, MAX_ARGS * 2)) : undefined;
    const text = o.outcome === 'InvalidJson'
        ? o.message
        : o.outcome === 'UnknownName'
            ? 'not among the offered tools'
            : o.outcome === 'SchemaMismatch'
                ? o.errors
                    .slice(0, 3)
                    .map((e) => `${e.instancePath || '/'} ${e.message}`)
                    .join('; ')
                : '';
    // A JSON parse error quotes the input it choked on.
    const message = o.outcome === 'InvalidJson' ? redactor.text(text) : { ok: true, value: text };
    return {
        timeMs: Math.floor(c.timeMs),
        model,
        traceId: storableText(c.traceId.slice(0, 200)),
        spanId: storableText(c.spanId.slice(0, 200)),
        name: storableText(c.name.slice(0, 1000)),
        ...(args?.ok ? { arguments: storableText(args.value.slice(0, MAX_ARGS)) } : {}),
        message: storableText((message.ok ? message.value : `[message not stored: ${message.reason}]`).slice(0, MAX_MESSAGE)),
    };
}
//# sourceMappingURL=record.js.map