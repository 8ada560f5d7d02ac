/**
 * A model call that names no tool: production's checker makes it `unvalidated` (`no_name`); the eval
 * records it the same way, labels it `_unnamed` in decisions, and the conversation answers it with an
 * UNKNOWN_TOOL error so the model can repair it.
 */
import { describe, expect, it } from 'vitest';
import { SchemaCache } from '../../src/check/schema-cache.js';
import type { AdapterRequest, AdapterResult, ModelAdapter } from '../../src/eval/adapters/adapter.js';
import { checkCall } from '../../src/eval/check.js';
import { converse } from '../../src/eval/conversation.js';
import { evaluate } from '../../src/eval/evaluate.js';
import type { CanonicalOutcome, EvalCase } from '../../src/eval/types.js';
import type { ToolDef } from '../../src/model.js';

const tools: ToolDef[] = [
  {
    name: 'lookup_order',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
];

const theCase: EvalCase = {
  id: 'nameless-01',
  file: 'cases.jsonl',
  line: 1,
  format: 'canonical',
  messages: [{ role: 'user', content: 'Where is ORD-1?' }],
  expected: { kind: 'tool', calls: [{ name: 'lookup_order' }] },
  tags: [],
  toolResults: {},
  maxTurns: 2,
};

/** Answers from a script, recording the requests. */
function scripted(answers: CanonicalOutcome[]): ModelAdapter & { requests: AdapterRequest[] } {
  const requests: AdapterRequest[] = [];
  return {
    provider: 'test',
    model: 'm',
    requests,
    complete(req: AdapterRequest): Promise<AdapterResult> {
      requests.push(structuredClone(req));
      return Promise.resolve({
        outcome: answers[requests.length - 1]!,
        request: {},
        response: {},
        latencyMs: 1,
        attempts: 1,
      });
    },
  };
}

describe('eval: a call that names no tool', () => {
  const schemas = new SchemaCache();

  it.each([
    ['empty name, JSON string arguments', '{"order_id":"ORD-1"}'],
    ['empty name, broken arguments', '{'],
    ['empty name, object arguments', { order_id: 'ORD-1' }],
  ])('%s → unvalidated no_name, as in production', (_name, args) => {
    const c = checkCall({ id: 'c1', name: '', arguments: args }, tools, schemas);
    expect(c).toMatchObject({ outcome: 'unvalidated', detail: 'no_name' });
  });

  it('is answered UNKNOWN_TOOL so the model can repair it, and is labelled _unnamed in the decision', async () => {
    const adapter = scripted([
      { kind: 'tool_calls', calls: [{ id: 'c1', name: '', arguments: '{"order_id":"ORD-1"}' }] },
      { kind: 'text', text: 'sorry' },
    ]);
    const conv = await converse({ adapter, case: theCase, system: '', tools, schemas, redact: (v) => v });
    const answer = conv.turns[0]!.toolResults![0]!;
    expect(answer.isError).toBe(true);
    expect(JSON.parse(answer.content)).toEqual({
      ok: false,
      error: { code: 'UNKNOWN_TOOL', message: 'The tool call names no tool.', details: ['lookup_order'] },
    });
    const ev = evaluate(theCase, { repeat: 0, ...conv }, { offered: tools, schemas, clarification: /\?$/ });
    expect(ev.decisionLabel).toBe('_unnamed');
    expect(ev.selectionPass).toBe(false);
    expect(ev.strictPass).toBe(false);
  });
});
