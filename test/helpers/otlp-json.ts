/** OTLP/JSON request pieces for tests that post to /v1/traces directly. */

export interface ChatSpanOptions {
  service: string;
  traceId: string;
  spanId: string;
  /** `gen_ai.tool.definitions`, as the JSON string agents send. */
  definitions: string;
  /** The one call the model proposes. */
  call: { id: string; name: string; arguments: string };
  endMs: number;
  model?: string;
}

/** A ResourceSpans with one GenAI chat span that proposes one tool call. */
export function chatResourceSpans(o: ChatSpanOptions) {
  return {
    resource: { attributes: [{ key: 'service.name', value: { stringValue: o.service } }] },
    scopeSpans: [
      {
        spans: [
          {
            traceId: o.traceId,
            spanId: o.spanId,
            name: 'chat',
            startTimeUnixNano: String((o.endMs - 1000) * 1e6),
            endTimeUnixNano: String(o.endMs * 1e6),
            attributes: [
              { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
              { key: 'gen_ai.request.model', value: { stringValue: o.model ?? 'model-a' } },
              { key: 'gen_ai.tool.definitions', value: { stringValue: o.definitions } },
              {
                key: 'gen_ai.output.messages',
                value: {
                  stringValue: JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', ...o.call }] }]),
                },
              },
            ],
          },
        ],
      },
    ],
  };
}
