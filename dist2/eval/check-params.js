export const ROUTING_FIELDS = ['provider', 'models', 'route', 'transforms', 'user'];
const DEFAULT_BASE = 'https://api.openai.com/v1';
/** What a run sends that the model must support. */
export function requestedParams(m, suite) {
    const set = new Set(['tools', 'tool_choice']);
    if (suite.temperature !== undefined)
        set.add('temperature');
    if (suite.maxTokens !== undefined)
        set.add('max_tokens');
    for (const k of Object.keys(m.params ?? {}))
        if (!ROUTING_FIELDS.includes(k))
            set.add(k);
    return [...set];
}
async function fetchModels(url, key, o) {
    const f = o.fetch ?? fetch;
    for (let attempt = 0;; attempt++) {
        let res;
        try {
            res = await f(url, {
                headers: { accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
                signal: AbortSignal.timeout(o.timeoutMs),
            });
        }
        catch (err) {
            const timeout = err.name === 'TimeoutError';
            if (attempt < o.maxRetries) {
                await o.sleep(1000 * 2 ** attempt);
                continue;
            }
            return { ok: false, fatal: true, note: `${url}: ${timeout ? 'no answer in time' : err.message}` };
        }
        if (res.status === 404)
            return { ok: false, fatal: false, note: `${url}: no models endpoint (404)` };
        if (res.status === 429 || res.status >= 500) {
            const header = res.headers.get('retry-after');
            const ra = header === null ? Number.NaN : Number(header);
            const wait = Number.isFinite(ra) && ra >= 0 ? ra * 1000 : 1000 * 2 ** attempt;
            if (attempt < o.maxRetries && wait <= o.maxRetryWaitMs) {
                await o.sleep(wait);
                continue;
            }
            return { ok: false, fatal: true, note: `${url}: HTTP ${res.status} (could not check)` };
        }
        if (!res.ok)
            return { ok: false, fatal: true, note: `${url}: HTTP ${res.status}` };
        let body;
        try {
            body = await res.json();
        }
        catch {
            return { ok: false, fatal: true, note: `${url}: the answer is not JSON` };
        }
        const data = body.data;
        if (!Array.isArray(data))
            return { ok: false, fatal: true, note: `${url}: the answer has no data list` };
        return { ok: true, data };
    }
}
export async function checkParams(models, suite, o) {
    const checks = [];
    const problems = [];
    const listings = new Map();
    for (const m of models) {
        const checked = requestedParams(m, suite);
        const base = { label: m.label, checked, missing: [] };
        if (m.provider !== 'openai' && m.provider !== 'openai-responses') {
            checks.push({ ...base, status: 'skipped', note: `${m.provider}: no models endpoint with supported parameters` });
            continue;
        }
        const url = `${(m.baseUrl ?? DEFAULT_BASE).replace(/\/+$/, '')}/models`;
        let l = listings.get(url);
        if (!l)
            listings.set(url, (l = fetchModels(url, o.apiKey(m), o)));
        const listing = await l;
        if (!listing.ok) {
            if (listing.fatal)
                problems.push(`${m.label}: --check-params: ${listing.note}`);
            checks.push({ ...base, status: 'skipped', note: listing.note });
            continue;
        }
        if (!listing.data.some((d) => Array.isArray(d.supported_parameters))) {
            checks.push({ ...base, status: 'skipped', note: `${url} lists no supported_parameters` });
            continue;
        }
        const entry = listing.data.find((d) => d.id === m.model);
        if (!entry) {
            problems.push(`${m.label}: --check-params: ${m.model} is not listed by ${url}`);
            checks.push({ ...base, status: 'unsupported', missing: checked, note: 'not listed' });
            continue;
        }
        const supported = new Set(Array.isArray(entry.supported_parameters) ? entry.supported_parameters : []);
        const missing = checked.filter((p) => !supported.has(p));
        if (missing.length)
            problems.push(`${m.label}: does not support ${missing.join(', ')} (${url} supported_parameters): it would silently ignore them, so it is not compared`);
        checks.push({ ...base, status: missing.length ? 'unsupported' : 'supported', missing });
    }
    return { checks, problems };
}
/** `run --check-params`: every model checked, one line each on `log`; the problems that refuse the run. */
export async function checkParamsForRun(models, s, apiKey, log, deps) {
    const r = await checkParams(models, s, {
        timeoutMs: s.timeoutMs,
        maxRetries: s.maxRetries,
        maxRetryWaitMs: s.maxRetryWaitMs,
        sleep: deps.sleep ?? ((ms) => new Promise((res) => setTimeout(res, ms))),
        apiKey,
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
    for (const c of r.checks)
        log(`check-params ${c.label}: ${c.status}${c.note ? ` (${c.note})` : ''} — ${c.checked.join(', ')}\n`);
    return r.problems;
}
//# sourceMappingURL=check-params.js.map