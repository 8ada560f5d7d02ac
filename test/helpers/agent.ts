/**
 * One realistic agent turn in OTel GenAI (current) form, emitted through the real SDK: four proposed
 * calls (valid, InvalidJson, UnknownName, SchemaMismatch), two executions (one failing), then a
 * model span whose input history replays all four.
 */
import { ROOT_CONTEXT, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';

const weatherSchema = {
  type: 'object',
  properties: { location: { type: 'string' }, unit: { enum: ['c', 'f'] } },
  required: ['location'],
  additionalProperties: false,
};
const definitions = JSON.stringify([
  { type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: weatherSchema },
  {
    type: 'function',
    name: 'lookup_order',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
]);

/** Per turn: get_weather valid 1, InvalidJson 1, SchemaMismatch 1; _unknown UnknownName 1; executions ok 1, error 1. */
export function agentTurn(tracer: Tracer, tag: string): void {
  {
    // No context manager is registered: children name their parent explicitly.
    const agent = tracer.startSpan('invoke_agent weather');
    const ctx = trace.setSpan(ROOT_CONTEXT, agent);
    agent.setAttribute('gen_ai.operation.name', 'invoke_agent');
    const chat = tracer.startSpan('chat gpt-4o', {}, ctx);
    chat.setAttributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.tool.definitions': definitions,
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          finish_reason: 'tool_call',
          parts: [
            { type: 'tool_call', id: `${tag}-ok`, name: 'get_weather', arguments: '{"location":"Paris"}' },
            { type: 'tool_call', id: `${tag}-badjson`, name: 'get_weather', arguments: '{"location": Par' },
            { type: 'tool_call', id: `${tag}-unknown`, name: 'get_wether', arguments: '{"location":"Paris"}' },
            {
              type: 'tool_call',
              id: `${tag}-mismatch`,
              name: 'get_weather',
              arguments: '{"location":42,"extra":true}',
            },
          ],
        },
      ]),
    });
    chat.end();
    for (const [id, failed] of [
      [`${tag}-ok`, false],
      [`${tag}-mismatch`, true],
    ] as const) {
      const tool = tracer.startSpan('execute_tool get_weather', {}, ctx);
      tool.setAttributes({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': id,
      });
      if (failed) {
        tool.setAttribute('error.type', 'ToolInputError');
        tool.setStatus({ code: SpanStatusCode.ERROR, message: 'bad input' });
      }
      tool.end();
    }
    const next = tracer.startSpan('chat gpt-4o', {}, ctx);
    next.setAttributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.tool.definitions': definitions,
      // The history replays every call of the first step: none may be counted again.
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'tool_call', id: `${tag}-ok`, name: 'get_weather', arguments: { location: 'Paris' } },
            { type: 'tool_call', id: `${tag}-badjson`, name: 'get_weather', arguments: '{"location": Par' },
            { type: 'tool_call', id: `${tag}-unknown`, name: 'get_wether', arguments: { location: 'Paris' } },
            { type: 'tool_call', id: `${tag}-mismatch`, name: 'get_weather', arguments: { location: 42, extra: true } },
          ],
        },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: `${tag}-ok`, response: 'sunny' }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'text', content: 'Sunny.' }], finish_reason: 'stop' },
      ]),
    });
    next.end();
    agent.end();
  }
}
