/**
 * Support-agent traces for the export tests, in OpenTelemetry GenAI (current) form through the real
 * OTel SDK: chat (the user's task with planted PII and secrets; proposes lookup_customer) →
 * execute_tool (a result full of secrets) → chat (proposes refund_order with a number where the
 * schema wants a string and a key it does not allow: SchemaMismatch — or answers in text).
 */
import { ROOT_CONTEXT, trace, type Tracer } from '@opentelemetry/api';
import { TOOLS } from '../judge/agent.js';
import { PLANTED } from '../judge/planted.js';

export function supportTrace(
  tracer: Tracer,
  opts: { tag: string; mismatch?: boolean; captureInput?: boolean },
): string {
  const agent = tracer.startSpan('invoke_agent support');
  const ctx = trace.setSpan(ROOT_CONTEXT, agent);
  agent.setAttribute('gen_ai.operation.name', 'invoke_agent');
  const task = `[${opts.tag}] Refund my last order. I am ${PLANTED.email}, card ${PLANTED.cardSpaced}, key ${PLANTED.openaiKey}, id ${PLANTED.customerId}.`;
  const input =
    opts.captureInput === false
      ? {}
      : { 'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: task }] }]) };
  const definitions = JSON.stringify(TOOLS);
  const first = tracer.startSpan('chat gpt-4o', {}, ctx);
  first.setAttributes({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.tool.definitions': definitions,
    'gen_ai.usage.input_tokens': 200,
    'gen_ai.usage.output_tokens': 20,
    ...input,
    'gen_ai.output.messages': JSON.stringify([
      {
        role: 'assistant',
        finish_reason: 'tool_call',
        parts: [
          {
            type: 'tool_call',
            id: `${opts.tag}-1`,
            name: 'lookup_customer',
            arguments: JSON.stringify({ email: PLANTED.email, password: PLANTED.password }),
          },
        ],
      },
    ]),
  });
  first.end();
  const tool = tracer.startSpan('execute_tool lookup_customer', {}, ctx);
  tool.setAttributes({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'lookup_customer',
    'gen_ai.tool.call.id': `${opts.tag}-1`,
    'gen_ai.tool.call.result': JSON.stringify({
      id: 'cus_42',
      last_order: 'ord_7',
      phone: PLANTED.phoneUs,
      token: PLANTED.bearer,
      aws: `aws_secret_access_key=${PLANTED.awsSecret}`,
      jwt: PLANTED.jwt,
    }),
  });
  tool.end();
  const second = tracer.startSpan('chat gpt-4o', {}, ctx);
  second.setAttributes({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.tool.definitions': definitions,
    'gen_ai.usage.input_tokens': 400,
    'gen_ai.usage.output_tokens': 30,
    ...input,
    'gen_ai.output.messages': JSON.stringify([
      opts.mismatch
        ? {
            role: 'assistant',
            finish_reason: 'tool_call',
            parts: [
              {
                type: 'tool_call',
                id: `${opts.tag}-2`,
                name: 'refund_order',
                arguments: JSON.stringify({ order_id: 7, note: `card ${PLANTED.cardDashed} ${PLANTED.githubToken}` }),
              },
            ],
          }
        : {
            role: 'assistant',
            finish_reason: 'stop',
            parts: [{ type: 'text', content: `Done; we will call ${PLANTED.phoneIntl}.` }],
          },
    ]),
  });
  second.end();
  agent.end();
  return agent.spanContext().traceId;
}
