/**
 * The problem tests' model span: a `refund` tool offered with a schema (amount required, items with
 * a required sku) and one call of it with the given arguments, each span in a trace of its own.
 */
import type { Span } from '../../src/model.js';
import { makeSpan } from '../helpers/spans.js';

export const HOUR = 3_600_000;
export const T0 = 1_700_000_000_000 - (1_700_000_000_000 % HOUR);
export const schema = {
  type: 'object',
  properties: {
    amount: { type: 'number' },
    items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
  },
  required: ['amount'],
};
const defs = JSON.stringify([{ type: 'function', name: 'refund', parameters: schema }]);

let n = 0;

/** The next span gets ids from `from` + 1 on (a test that builds the same spans twice starts them over). */
export function numberSpansFrom(from: number): void {
  n = from;
}

export function chat(
  args: string,
  opts: { model?: string; name?: string; timeMs?: number; service?: string } = {},
): Span {
  n++;
  const t = opts.timeMs ?? T0 + 1_000;
  return makeSpan(
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': opts.model ?? 'gpt-4.1',
      'gen_ai.tool.definitions': defs,
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: `c${n}`, name: opts.name ?? 'refund', arguments: args }],
        },
      ]),
    },
    {
      traceId: n.toString(16).padStart(32, '0'),
      spanId: n.toString(16).padStart(16, '0'),
      startTimeMs: t - 100,
      endTimeMs: t,
      service: opts.service ?? 'shop',
    },
  );
}
