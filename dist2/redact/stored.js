/**
 * Redaction of what toolwatch stores (store.redact_arguments): the arguments and messages of failure
 * records and the free text of sampled trajectories are masked before they are written. Counting and
 * classification happen before this, on the values as sent; only the stored copy is masked, and only
 * what is stored pays for it (a few records per tool and minute, the sampled trajectories).
 *
 * Fails closed: a value the redactor cannot handle (it throws — a structure nested too deeply to walk,
 * a pathological input) is not stored at all, and the reason is recorded in its place.
 */
import { createRedactor } from './redact.js';
const keep = (value) => ({ ok: true, value });
export function storeRedactor(level) {
    if (level === 'none')
        return { level, json: keep, text: keep };
    // Secret-named keys are built into the redactor (src/redact/secret-keys.ts), as for the judge and the export.
    const r = createRedactor({ fields: [], patterns: [], level });
    return { level, json: (raw) => guarded(() => maskJson(r, raw)), text: (s) => guarded(() => r.text(s)) };
}
function maskJson(r, raw) {
    let parsed;
    try {
        parsed = JSON.parse(raw);
    }
    catch {
        return r.text(raw);
    }
    if (!parsed || typeof parsed !== 'object')
        return r.text(raw);
    const before = JSON.stringify(parsed);
    const after = JSON.stringify(r.value(parsed));
    return after === before ? raw : after;
}
function guarded(fn) {
    try {
        return { ok: true, value: fn() };
    }
    catch (err) {
        return {
            ok: false,
            reason: `redaction failed (${err.name}: ${err.message.slice(0, 200)}); not stored`,
        };
    }
}
//# sourceMappingURL=stored.js.map