/**
 * The provider that really served a model call, as the changes (src/changes/) version it: the
 * provider the dialect names, the upstream a router reports where an instrumentation records it,
 * and the host the request went to.
 *   provider[/upstream][@server.address]   e.g. `openrouter/Together`, `openai@api.openai.com`
 * Where the router's answer is recorded:
 * - Vercel AI SDK with OpenRouter's provider: `ai.response.providerMetadata` (JSON)
 *   `{"openrouter": {"provider": …}}`;
 * - OpenRouter's own response body has a top-level `provider`: read from OpenInference's raw
 *   `output.value` only when the call went to OpenRouter (named so, or by its host), since parsing
 *   every response for it would cost every span;
 * - LiteLLM names the provider it routed to in `gen_ai.system` (its `custom_llm_provider`, read as
 *   the provider already) and the endpoint in the `hidden_params` JSON's `api_base`, used as the host
 *   when `server.address` is absent.
 * An instrumentation of the OpenAI SDK pointed at a router records neither: its `server.address`
 * (`openrouter.ai`) is all there is, and it is kept.
 */
import type { AttrObject } from '../model.js';
import { jsonValue, str } from '../util/values.js';

const isRec = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function servedBy(a: AttrObject, named: string | undefined): string | undefined {
  const server = str(a, 'server.address') ?? liteLlmHost(a);
  const upstream = routerUpstream(a, named, server);
  // A model span repeats the last one's provider and host: the same string again, not a new one made
  // per span (the changes' per-value caches then compare it by identity).
  if (named === lastNamed && upstream === lastUpstream && server === lastServer) return lastValue;
  let value = named ?? '';
  if (upstream !== undefined && upstream.toLowerCase() !== value.toLowerCase())
    value = value === '' ? upstream : `${value}/${upstream}`;
  if (server !== undefined) value = value === '' ? server : `${value}@${server}`;
  lastNamed = named;
  lastUpstream = upstream;
  lastServer = server;
  lastValue = value === '' ? undefined : value;
  return lastValue;
}

let lastNamed: string | undefined;
let lastUpstream: string | undefined;
let lastServer: string | undefined;
let lastValue: string | undefined;

function routerUpstream(a: AttrObject, named: string | undefined, server: string | undefined): string | undefined {
  const meta = a['ai.response.providerMetadata'];
  if (meta !== undefined) {
    const m = jsonValue(meta);
    const or = isRec(m) ? m['openrouter'] : undefined;
    if (isRec(or) && typeof or['provider'] === 'string' && or['provider'] !== '') return or['provider'];
  }
  const out = a['output.value'];
  // The cheap test first: most model spans have no output.value (this runs for every one).
  if (typeof out !== 'string') return undefined;
  const viaOpenRouter = /openrouter/i.test(named ?? '') || /openrouter/i.test(server ?? '');
  if (viaOpenRouter && out.includes('"provider"')) {
    const body = jsonValue(out);
    if (isRec(body) && typeof body['provider'] === 'string' && body['provider'] !== '') return body['provider'];
  }
  return undefined;
}

function liteLlmHost(a: AttrObject): string | undefined {
  const hidden = a['hidden_params'];
  if (typeof hidden !== 'string' || !hidden.includes('api_base')) return undefined;
  const h = jsonValue(hidden);
  const base = isRec(h) ? h['api_base'] : undefined;
  if (typeof base !== 'string' || base === '') return undefined;
  try {
    return new URL(base).host || undefined;
  } catch {
    return undefined;
  }
}
