/**
 * OTLP log-record scenarios of OpenTelemetry's OpenAI instrumentation (see
 * test/fixtures/genai-logs/README.md for what they follow), as the ReadableLogRecords and
 * ReadableSpans the real SDKs hand their exporters: one chat request whose model proposed three
 * calls (valid arguments, arguments that are not JSON, an invented name), in each mode.
 */
import { TraceFlags, type Attributes, type HrTime } from '@opentelemetry/api';
import type { AnyValueMap } from '@opentelemetry/api-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

export const MODEL = 'gpt-4o-mini-2024-07-18';
export const SCOPE = 'opentelemetry.instrumentation.openai_v2';

export interface ProposedCall {
  id: string;
  name: string;
  arguments: string;
}

export const CALLS: readonly ProposedCall[] = [
  { id: 'call_lg1', name: 'get_weather', arguments: '{"city":"Paris"}' },
  { id: 'call_lg2', name: 'get_weather', arguments: '{"city": Paris' },
  { id: 'call_lg3', name: 'get_wether', arguments: '{"city":"Paris"}' },
];

export type Mode =
  /** default mode, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: gen_ai.choice with arguments */
  | 'events-content'
  /** default mode, content not captured (the default): calls named, arguments withheld */
  | 'events-no-content'
  /** gen_ai_latest_experimental + event_only: one operation-details record */
  | 'details-event'
  /** the same choice also as a span event on the chat span (a Collector, or an SDK bridging events) */
  | 'events-and-span-event'
  /** gen_ai_latest_experimental + span_and_event: messages on the span and in the record */
  | 'details-span-and-event';

export interface Scenario {
  spans: ReadableSpan[];
  logs: ReadableLogRecord[];
}

const hr = (ms: number): HrTime => [Math.floor(ms / 1000), (ms % 1000) * 1e6];

function parsedArgs(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function toolCalls(content: boolean): AnyValueMap[] {
  return CALLS.map((c) => ({
    id: c.id,
    type: 'function',
    function: content ? { name: c.name, arguments: c.arguments } : { name: c.name },
  }));
}

function outputMessages(): AnyValueMap[] {
  return [
    {
      role: 'assistant',
      parts: CALLS.map((c) => ({
        type: 'tool_call',
        id: c.id,
        name: c.name,
        arguments: parsedArgs(c.arguments) as never,
      })),
      finish_reason: 'tool_calls',
    },
  ];
}

const inputMessages = (): AnyValueMap[] => [{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }];

/** One chat request of the instrumentation in `mode`, under `service`, in trace `traceId`. */
export function scenario(mode: Mode, service: string, traceId: string, spanId: string, startMs: number): Scenario {
  const resource = resourceFromAttributes({ 'service.name': service });
  const scope = { name: SCOPE, version: '2.1b0' };
  const ctx = { traceId, spanId, traceFlags: TraceFlags.SAMPLED };
  const experimental = mode === 'details-event' || mode === 'details-span-and-event';
  const spanAttrs: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.response.model': MODEL,
    'gen_ai.usage.input_tokens': 52,
    'gen_ai.usage.output_tokens': 31,
    'gen_ai.response.finish_reasons': ['tool_calls'],
    ...(experimental ? { 'gen_ai.provider.name': 'openai' } : { 'gen_ai.system': 'openai' }),
  };
  if (mode === 'details-span-and-event') {
    spanAttrs['gen_ai.input.messages'] = JSON.stringify(inputMessages());
    spanAttrs['gen_ai.output.messages'] = JSON.stringify(outputMessages());
  }
  const record = (eventName: string, body: AnyValueMap | undefined, attributes: AnyValueMap, at: number) =>
    ({
      hrTime: hr(at),
      hrTimeObserved: hr(at),
      spanContext: ctx,
      eventName,
      ...(body ? { body } : {}),
      resource,
      instrumentationScope: scope,
      attributes,
      droppedAttributesCount: 0,
    }) as ReadableLogRecord;
  const logs: ReadableLogRecord[] = [];
  const events: ReadableSpan['events'] = [];
  if (experimental) {
    logs.push(
      record(
        'gen_ai.client.inference.operation.details',
        undefined,
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.model': MODEL,
          'gen_ai.provider.name': 'openai',
          'gen_ai.input.messages': inputMessages(),
          'gen_ai.output.messages': outputMessages(),
        },
        startMs + 40,
      ),
    );
  } else {
    const content = mode !== 'events-no-content';
    const system = { 'gen_ai.system': 'openai' };
    logs.push(record('gen_ai.user.message', content ? { content: 'Weather in Paris?' } : undefined, system, startMs));
    const choice = {
      index: 0,
      finish_reason: 'tool_calls',
      message: { role: 'assistant', tool_calls: toolCalls(content) },
    };
    logs.push(record('gen_ai.choice', choice, system, startMs + 40));
    if (mode === 'events-and-span-event')
      events.push({ name: 'gen_ai.choice', time: hr(startMs + 40), attributes: { body: JSON.stringify(choice) } });
  }
  const span: ReadableSpan = {
    name: 'chat gpt-4o-mini',
    kind: 2, // CLIENT (api SpanKind)
    spanContext: () => ctx,
    startTime: hr(startMs),
    endTime: hr(startMs + 50),
    status: { code: 0 },
    attributes: spanAttrs,
    links: [],
    events,
    duration: [0, 50e6],
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
  return { spans: [span], logs };
}

/** What the three calls must be counted as, per mode, without a tool registry (the instrumentation sends no definitions). */
export function expectedCalls(mode: Mode): Record<string, number> {
  if (mode === 'events-no-content') return { 'get_weather|unvalidated': 2, 'get_wether|unvalidated': 1 };
  return { 'get_weather|unvalidated': 1, 'get_weather|InvalidJson': 1, 'get_wether|unvalidated': 1 };
}
