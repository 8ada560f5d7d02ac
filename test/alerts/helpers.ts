/** For the alert integration tests: an agent that emits tool calls through the real OTel exporter, and waiting. */
import type { OtelClient } from '../helpers/otel.js';

const weather = {
  type: 'object',
  properties: { location: { type: 'string' } },
  required: ['location'],
  additionalProperties: false,
};
const definitions = JSON.stringify([{ type: 'function', name: 'get_weather', parameters: weather }]);
let seq = 0;

/**
 * One model span proposing `valid` good calls, `invalidJson` calls with broken JSON and
 * `mismatch` calls whose `location` is a number (SchemaMismatch at /location).
 */
export async function agentCalls(
  client: OtelClient,
  n: { valid?: number; invalidJson?: number; mismatch?: number },
): Promise<void> {
  const parts: unknown[] = [];
  const add = (count: number | undefined, args: string) => {
    for (let i = 0; i < (count ?? 0); i++)
      parts.push({ type: 'tool_call', id: `call-${++seq}`, name: 'get_weather', arguments: args });
  };
  add(n.valid, '{"location":"Paris"}');
  add(n.invalidJson, '{"location": Par');
  add(n.mismatch, '{"location":42}');
  const span = client.tracer.startSpan('chat gpt-4o');
  span.setAttributes({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.tool.definitions': definitions,
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', finish_reason: 'tool_call', parts }]),
  });
  span.end();
  await client.flush();
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 8000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
