/**
 * Every dialect over the wire, through the real OTLP exporters: attribute values as JSON strings
 * and as structured kvlist/array values (which the SDK's span API cannot set, so the spans are
 * handed to the exporter as ReadableSpans, exactly as a span processor would).
 */
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';

let seq = 0;
const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');

function span(
  traceId: string,
  name: string,
  attributes: Record<string, unknown>,
  opts: { scope?: string; error?: boolean; service: string },
): ReadableSpan {
  const spanId = hex(++seq, 16);
  const start = Date.now() - 1000;
  return {
    name,
    kind: SpanKind.CLIENT,
    spanContext: () => ({ traceId, spanId, traceFlags: TraceFlags.SAMPLED }),
    startTime: [Math.floor(start / 1000), (start % 1000) * 1e6],
    endTime: [Math.floor(start / 1000) + 1, 0],
    status: opts.error ? { code: SpanStatusCode.ERROR, message: 'boom' } : { code: SpanStatusCode.UNSET },
    attributes: attributes as ReadableSpan['attributes'],
    links: [],
    events: [],
    duration: [1, 0],
    ended: true,
    resource: resourceFromAttributes({ 'service.name': opts.service }),
    instrumentationScope: { name: opts.scope ?? 'test' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

const cityTool = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};

/** Each dialect: spans for one trace with one valid and one SchemaMismatch call, one executed. */
const dialects: { name: string; spans: (t: string, service: string) => ReadableSpan[] }[] = [
  {
    name: 'genai (structured kvlist/array values)',
    spans: (t, service) => [
      span(
        t,
        'chat m',
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'm',
          'gen_ai.tool.definitions': [{ type: 'function', name: 'weather', parameters: cityTool }],
          'gen_ai.output.messages': [
            {
              role: 'assistant',
              parts: [
                { type: 'tool_call', id: 'a', name: 'weather', arguments: { city: 'Oslo' } },
                { type: 'tool_call', id: 'b', name: 'weather', arguments: { town: 'Oslo' } },
              ],
            },
          ],
        },
        { service },
      ),
      span(
        t,
        'execute_tool weather',
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'weather',
          'gen_ai.tool.call.id': 'a',
          'gen_ai.tool.call.arguments': { city: 'Oslo' },
        },
        { service },
      ),
    ],
  },
  {
    name: 'openllmetry numbered keys',
    spans: (t, service) => [
      span(
        t,
        'openai.chat',
        {
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'm',
          'llm.request.functions.0.name': 'weather',
          'llm.request.functions.0.parameters': JSON.stringify(cityTool),
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.tool_calls.0.id': 'a',
          'gen_ai.completion.0.tool_calls.0.name': 'weather',
          'gen_ai.completion.0.tool_calls.0.arguments': '{"city":"Oslo"}',
          'gen_ai.completion.0.tool_calls.1.id': 'b',
          'gen_ai.completion.0.tool_calls.1.name': 'weather',
          'gen_ai.completion.0.tool_calls.1.arguments': '{"city":7}',
        },
        { service },
      ),
      span(
        t,
        'weather.tool',
        {
          'traceloop.span.kind': 'tool',
          'traceloop.entity.name': 'weather',
          'traceloop.entity.input': '{"inputs":{"city":"Oslo"}}',
        },
        { service, error: true },
      ),
    ],
  },
  {
    name: 'openinference',
    spans: (t, service) => [
      span(
        t,
        'ChatOpenAI',
        {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'm',
          'llm.tools.0.tool.json_schema': JSON.stringify({
            type: 'function',
            function: { name: 'weather', parameters: cityTool },
          }),
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'a',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'weather',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Oslo"}',
          'llm.output_messages.0.message.tool_calls.1.tool_call.id': 'b',
          'llm.output_messages.0.message.tool_calls.1.tool_call.function.name': 'weather',
          'llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments': '{}',
        },
        { service },
      ),
      span(
        t,
        'weather',
        {
          'openinference.span.kind': 'TOOL',
          'tool.name': 'weather',
          'input.value': '{"city": "Oslo"}',
          'output.value': 'sunny',
        },
        { service },
      ),
    ],
  },
  {
    name: 'vercel ai sdk v5 (legacy telemetry), with the outer summary span',
    spans: (t, service) => {
      const calls = JSON.stringify([
        { type: 'tool-call', toolCallId: 'a', toolName: 'weather', input: { city: 'Oslo' } },
        { type: 'tool-call', toolCallId: 'b', toolName: 'weather', input: { city: ['Oslo'] } },
      ]);
      return [
        span(
          t,
          'ai.generateText.doGenerate',
          {
            'ai.operationId': 'ai.generateText.doGenerate',
            'ai.model.id': 'm',
            'ai.model.provider': 'openai.chat',
            'ai.prompt.tools': [JSON.stringify({ type: 'function', name: 'weather', inputSchema: cityTool })],
            'ai.response.toolCalls': calls,
          },
          { service, scope: 'ai' },
        ),
        span(
          t,
          'ai.toolCall',
          {
            'ai.operationId': 'ai.toolCall',
            'ai.toolCall.name': 'weather',
            'ai.toolCall.id': 'a',
            'ai.toolCall.args': '{"city":"Oslo"}',
          },
          { service, scope: 'ai' },
        ),
        span(
          t,
          'ai.generateText',
          { 'ai.operationId': 'ai.generateText', 'ai.model.id': 'm', 'ai.response.toolCalls': calls },
          { service, scope: 'ai' },
        ),
      ];
    },
  },
];

describe.each([
  ['proto', (url: string) => new ProtoExporter({ url })],
  ['json', (url: string) => new JsonExporter({ url })],
] as const)('dialects over OTLP/%s', (wire, makeExporter) => {
  let tw: Harness;
  beforeAll(async () => {
    tw = await startToolwatch();
  });
  afterAll(async () => {
    await tw.close();
  });

  it.each(dialects)('$name: one valid, one SchemaMismatch, one execution', async ({ name, spans }) => {
    const service = `${wire}-${name.split(' ')[0]}`;
    const exporter = makeExporter(`${tw.url}/v1/traces`);
    // Send the tool span first and the model span in a later export: arrival order must not matter.
    const all = spans(hex(++seq, 32), service);
    for (const batch of [all.slice(1), all.slice(0, 1)]) {
      const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(batch, resolve));
      expect(result.code, String(result.error)).toBe(0);
    }
    await exporter.shutdown();
    await tw.services.pipeline.settle(Date.now() + 3_600_000);
    const text = await tw.metrics();
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service, tool: 'weather', outcome: 'valid' })).toBe(1);
    expect(
      metricValue(text, 'toolwatch_tool_calls_total', { service, tool: 'weather', outcome: 'SchemaMismatch' }),
    ).toBe(1);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service })).toBe(2);
    expect(metricValue(text, 'toolwatch_tool_executions_total', { service, tool: 'weather' })).toBe(1);
  });
});
