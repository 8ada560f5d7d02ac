/**
 * A support agent's trace in OpenTelemetry GenAI (current) form, sent by the real OTel SDK:
 * root agent span → chat (user task, proposes lookup_customer) → execute_tool (result) → chat
 * (final answer; optionally proposes a call with broken JSON, a structural failure that arrives
 * in the trace's last batch). Planted PII and secrets appear in the task, arguments, result and answer.
 */
import { ROOT_CONTEXT, trace, type Tracer } from '@opentelemetry/api';
import { PLANTED } from './planted.js';

export const TOOLS = [
  {
    type: 'function',
    name: 'lookup_customer',
    description: 'Find a customer record by email address.',
    parameters: {
      type: 'object',
      properties: { email: { type: 'string' }, password: { type: 'string' }, note: { type: 'string' } },
      required: ['email'],
      additionalProperties: false,
    },
  },
  {
    type: 'function',
    name: 'refund_order',
    description: 'Refund an order. Side effect: moves money.',
    parameters: {
      type: 'object',
      properties: { order_id: { type: 'string' } },
      required: ['order_id'],
      additionalProperties: false,
    },
  },
];

export function agentTrace(tracer: Tracer, opts: { tag: string; failing?: boolean }): string {
  const agent = tracer.startSpan('invoke_agent support');
  const ctx = trace.setSpan(ROOT_CONTEXT, agent);
  agent.setAttribute('gen_ai.operation.name', 'invoke_agent');
  const task =
    `[${opts.tag}] Please check my account. I am ${PLANTED.email}, phone ${PLANTED.phoneIntl}, card ${PLANTED.cardSpaced}. ` +
    `My API key is ${PLANTED.openaiKey} and customer id ${PLANTED.customerId}.`;
  const definitions = JSON.stringify(TOOLS);
  const chat = tracer.startSpan('chat gpt-4o', {}, ctx);
  chat.setAttributes({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.tool.definitions': definitions,
    'gen_ai.usage.input_tokens': 120,
    'gen_ai.usage.output_tokens': 30,
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: task }] }]),
    'gen_ai.output.messages': JSON.stringify([
      {
        role: 'assistant',
        finish_reason: 'tool_call',
        parts: [
          {
            type: 'tool_call',
            id: `${opts.tag}-1`,
            name: 'lookup_customer',
            arguments: JSON.stringify({
              email: PLANTED.email,
              password: PLANTED.password,
              note: `auth ${PLANTED.bearer}`,
            }),
          },
        ],
      },
    ]),
  });
  chat.end();
  const tool = tracer.startSpan('execute_tool lookup_customer', {}, ctx);
  tool.setAttributes({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'lookup_customer',
    'gen_ai.tool.call.id': `${opts.tag}-1`,
    'gen_ai.tool.call.arguments': JSON.stringify({ email: PLANTED.email, password: PLANTED.password }),
    'gen_ai.tool.call.result': JSON.stringify({
      id: 'cus_42',
      phone: PLANTED.phoneUs,
      aws: `aws_access_key_id=${PLANTED.awsKey} aws_secret_access_key=${PLANTED.awsSecret}`,
      session: PLANTED.jwt,
      gh: PLANTED.githubToken,
      other_key: PLANTED.anthropicKey,
      backup_card: PLANTED.cardDashed,
      amex: PLANTED.cardPlain,
      alt_phone: PLANTED.phoneE164,
    }),
  });
  tool.end();
  const final = tracer.startSpan('chat gpt-4o', {}, ctx);
  final.setAttributes({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.tool.definitions': definitions,
    'gen_ai.usage.input_tokens': 300,
    'gen_ai.usage.output_tokens': 40,
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: task }] }]),
    'gen_ai.output.messages': JSON.stringify([
      {
        role: 'assistant',
        finish_reason: opts.failing ? 'tool_call' : 'stop',
        parts: opts.failing
          ? [{ type: 'tool_call', id: `${opts.tag}-2`, name: 'refund_order', arguments: '{"order_id": ord_' }]
          : [{ type: 'text', content: `Your account cus_42 is fine; we will call ${PLANTED.phoneUs}.` }],
      },
    ]),
  });
  final.end();
  agent.end();
  return agent.spanContext().traceId;
}
