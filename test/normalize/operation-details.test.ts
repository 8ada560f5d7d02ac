/**
 * Content carried in the `gen_ai.client.inference.operation.details` span event instead of span
 * attributes (Strands with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental:
 * strands-agents/sdk-python `src/strands/telemetry/tracer.py`).
 */
import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { makeEvent, makeSpan } from '../helpers/spans.js';
import { c, summarize } from './summary.js';

const dialects = builtinDialects();

const DETAILS = 'gen_ai.client.inference.operation.details';

describe('GenAI content in the operation-details event', () => {
  it('model span: output messages from the event', () => {
    const f = dialects.normalizeSpan(
      makeSpan(
        { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'strands-agents' },
        {
          events: [
            makeEvent(DETAILS, {
              'gen_ai.input.messages': JSON.stringify([
                { role: 'user', parts: [{ type: 'text', content: 'Weather?' }] },
              ]),
            }),
            makeEvent(DETAILS, {
              'gen_ai.output.messages': JSON.stringify([
                {
                  role: 'assistant',
                  parts: [{ type: 'tool_call', name: 'w', id: 'tooluse_1', arguments: { city: 'Oslo' } }],
                  finish_reason: 'tool_use',
                },
              ]),
            }),
          ],
        },
      ),
    )!;
    expect(summarize(f)).toMatchObject({
      dialect: 'genai',
      role: 'model',
      proposals: [c('tooluse_1', 'w', '{"city":"Oslo"}', 'structured')],
      userMessage: 'Weather?',
    });
  });

  it('tool span: the arguments of the tool_call part in its input messages', () => {
    const f = dialects.normalizeSpan(
      makeSpan(
        { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'w', 'gen_ai.tool.call.id': 'tooluse_1' },
        {
          events: [
            makeEvent(DETAILS, {
              'gen_ai.input.messages': JSON.stringify([
                {
                  role: 'tool',
                  parts: [{ type: 'tool_call', name: 'w', id: 'tooluse_1', arguments: { city: 'Oslo' } }],
                },
              ]),
            }),
          ],
        },
      ),
    )!;
    expect(summarize(f).execution).toMatchObject({
      name: 'w',
      callId: 'tooluse_1',
      kind: 'structured',
      raw: '{"city":"Oslo"}',
    });
  });

  it('span attributes win over the event', () => {
    const f = dialects.normalizeSpan(
      makeSpan(
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'tool_call', name: 'a', id: '1' }] },
          ]),
        },
        {
          events: [
            makeEvent(DETAILS, {
              'gen_ai.output.messages': JSON.stringify([
                { role: 'assistant', parts: [{ type: 'tool_call', name: 'b', id: '2' }] },
              ]),
            }),
          ],
        },
      ),
    )!;
    expect(f.proposals.map((p) => p.name)).toEqual(['a']);
  });
});
