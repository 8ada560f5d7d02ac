/**
 * An OpenRouter stand-in: `POST /api/v1/chat/completions` as the chat-completions fake speaks it,
 * and `GET /api/v1/models` as OpenRouter answers it — `{data: [{id, canonical_slug, name, created,
 * context_length, architecture, pricing, top_provider, supported_parameters}]}` — or, when
 * scripted, an error in OpenRouter's shape `{error: {code, message}}` (429 with Retry-After, 5xx).
 */
import type { ServerResponse } from 'node:http';
import { chatCompletionsProtocol } from './chat-completions.js';
import { startScripted, type FakeServer, type Script } from './scripted.js';

export interface ListedModel {
  id: string;
  supported_parameters?: string[];
}

export type ModelsReply = { status: number; headers?: Record<string, string>; message?: string } | 'list';

export interface FakeOpenRouter extends FakeServer {
  models: ListedModel[];
  /** Per GET /models request (1-based): an error, or 'list'. */
  modelsScript: (n: number) => ModelsReply;
  modelsRequests: number;
}

function listing(models: ListedModel[]) {
  return {
    data: models.map((m) => ({
      id: m.id,
      canonical_slug: m.id,
      name: m.id,
      created: 1_760_000_000,
      context_length: 131072,
      architecture: { modality: 'text->text', input_modalities: ['text'], output_modalities: ['text'] },
      pricing: { prompt: '0.0000001', completion: '0.0000004' },
      top_provider: { context_length: 131072, max_completion_tokens: 16384, is_moderated: false },
      ...(m.supported_parameters ? { supported_parameters: m.supported_parameters } : {}),
    })),
  };
}

export async function startOpenRouter(script: Script, models: ListedModel[]): Promise<FakeOpenRouter> {
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  const proto = { ...chatCompletionsProtocol(), path: '/api/v1/chat/completions' };
  let out: FakeOpenRouter | undefined;
  const fake = await startScripted(proto, script, '/api/v1', (req, res) => {
    if (req.method !== 'GET' || req.url !== '/api/v1/models' || !out) return false;
    const reply = out.modelsScript(++out.modelsRequests);
    if (reply === 'list') send(res, 200, listing(out.models));
    else
      send(
        res,
        reply.status,
        { error: { code: reply.status, message: reply.message ?? `status ${reply.status}` } },
        reply.headers,
      );
    return true;
  });
  out = Object.assign(fake, { models, modelsScript: (): ModelsReply => 'list', modelsRequests: 0 });
  return out;
}
