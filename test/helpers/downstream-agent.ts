/**
 * An agent turn whose tools call a downstream HTTP API, emitted through the real OpenTelemetry SDK:
 * one model span proposing the calls (OTel GenAI), then per call an `execute_tool` span and, inside
 * it, an HTTP client span (`http.request.method`, `http.response.status_code`) — ended and exported
 * before its tool span ('before', the usual order), in the same export ('same'), or after the tool
 * span was exported ('after': a child in a later batch than its parent). Times are explicit, so the
 * tool spans' durations are exact.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import type { OtelClient } from './otel.js';

export const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
const DEFINITIONS = JSON.stringify([{ type: 'function', name: 'get_weather', parameters: WEATHER_SCHEMA }]);

export interface PlannedCall {
  id: string;
  /** The arguments as the model wrote them ('{"city":"Oslo"}' is valid, '{"city":1}' a SchemaMismatch). */
  args: string;
  /** The tool span's own attributes (error.type, http.response.status_code …) and status. */
  tool?: { attributes?: Attributes; error?: string };
  /** The downstream HTTP call the tool made, if any: its status code and when it is exported. */
  http?: { status: number; order: 'before' | 'same' | 'after' };
  /** How long the tool ran (ms). */
  durationMs: number;
  /** Leave the proposal out: the call is known from its tool span alone. */
  noProposal?: boolean;
  /** With http.order 'after': runs between the tool span's export and its child's. */
  betweenExports?: () => Promise<void>;
}

/** Emits one turn; resolves once everything was exported. `t0` is the turn's start (ms since the epoch). */
export async function downstreamTurn(
  client: OtelClient,
  opts: { model: string; calls: PlannedCall[]; t0: number; tokens?: number },
): Promise<void> {
  const { tracer } = client;
  const agent = tracer.startSpan('invoke_agent weather', { startTime: opts.t0 });
  agent.setAttribute('gen_ai.operation.name', 'invoke_agent');
  const ctx = trace.setSpan(ROOT_CONTEXT, agent);
  const chat = tracer.startSpan('chat', { startTime: opts.t0 + 1 }, ctx);
  chat.setAttributes({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': opts.model,
    'gen_ai.tool.definitions': DEFINITIONS,
    ...(opts.tokens !== undefined ? { 'gen_ai.usage.input_tokens': opts.tokens, 'gen_ai.usage.output_tokens': 0 } : {}),
    'gen_ai.output.messages': JSON.stringify([
      {
        role: 'assistant',
        finish_reason: 'tool_call',
        parts: opts.calls
          .filter((c) => !c.noProposal)
          .map((c) => ({ type: 'tool_call', id: c.id, name: 'get_weather', arguments: c.args })),
      },
    ]),
  });
  chat.end(opts.t0 + 100);
  await client.flush();
  let at = opts.t0 + 200;
  for (const c of opts.calls) {
    const tool = tracer.startSpan('execute_tool get_weather', { startTime: at }, ctx);
    tool.setAttributes({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': c.id,
      'gen_ai.tool.call.arguments': c.args,
      ...c.tool?.attributes,
    });
    if (c.tool?.error !== undefined) tool.setStatus({ code: SpanStatusCode.ERROR, message: c.tool.error });
    const end = at + c.durationMs;
    const http = c.http
      ? tracer.startSpan('GET', { kind: SpanKind.CLIENT, startTime: at + 1 }, trace.setSpan(ROOT_CONTEXT, tool))
      : undefined;
    if (http && c.http) {
      http.setAttributes({
        'http.request.method': 'GET',
        'url.full': 'https://weather.example/v1',
        'http.response.status_code': c.http.status,
      });
      // As HTTP client instrumentations do: 4xx and 5xx are errors on a client span.
      if (c.http.status >= 400) http.setStatus({ code: SpanStatusCode.ERROR });
    }
    const endChild = () => http?.end(end - 1);
    if (c.http?.order === 'before') {
      endChild();
      await client.flush();
      tool.end(end);
    } else if (c.http?.order === 'same') {
      endChild();
      tool.end(end);
    } else if (c.http?.order === 'after') {
      tool.end(end);
      await client.flush();
      await c.betweenExports?.();
      endChild();
    } else tool.end(end);
    await client.flush();
    at = end + 10;
  }
  agent.end(at);
  await client.flush();
}
