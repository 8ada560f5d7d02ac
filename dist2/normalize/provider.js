import { jsonValue, str } from '../util/values.js';
const isRec = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
export function servedBy(a, named) {
    const server = str(a, 'server.address') ?? liteLlmHost(a);
    const upstream = routerUpstream(a, named, server);
    let value = named ?? '';
    if (upstream !== undefined && upstream.toLowerCase() !== value.toLowerCase())
        value = value === '' ? upstream : `${value}/${upstream}`;
    if (server !== undefined)
        value = value === '' ? server : `${value}@${server}`;
    return value === '' ? undefined : value;
}
function routerUpstream(a, named, server) {
    const meta = a['ai.response.providerMetadata'];
    if (meta !== undefined) {
        const m = jsonValue(meta);
        const or = isRec(m) ? m['openrouter'] : undefined;
        if (isRec(or) && typeof or['provider'] === 'string' && or['provider'] !== '')
            return or['provider'];
    }
    const viaOpenRouter = /openrouter/i.test(named ?? '') || /openrouter/i.test(server ?? '');
    const out = a['output.value'];
    if (viaOpenRouter && typeof out === 'string' && out.includes('"provider"')) {
        const body = jsonValue(out);
        if (isRec(body) && typeof body['provider'] === 'string' && body['provider'] !== '')
            return body['provider'];
    }
    return undefined;
}
function liteLlmHost(a) {
    const hidden = a['hidden_params'];
    if (typeof hidden !== 'string' || !hidden.includes('api_base'))
        return undefined;
    const h = jsonValue(hidden);
    const base = isRec(h) ? h['api_base'] : undefined;
    if (typeof base !== 'string' || base === '')
        return undefined;
    try {
        return new URL(base).host || undefined;
    }
    catch {
        return undefined;
    }
}
//# sourceMappingURL=provider.js.map