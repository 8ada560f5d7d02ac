/**
 * The system prompt's version read from the input history (src/normalize/system-message.ts) where a
 * span has no gen_ai.system_instructions: the same prompt as instructions or as the history's
 * system message is one version; a changed prompt is another; a history whose first message is not
 * the system's gives none; only the first message is parsed (a tail that is no JSON is not read).
 */
import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { makeSpan } from '../helpers/spans.js';

const dialects = builtinDialects();
const PARTS = [{ type: 'text', content: 'You are a shop assistant.' }];
const user = { role: 'user', parts: [{ type: 'text', content: 'refund o1' }] };
const genai = (attrs: Record<string, unknown>) =>
  dialects.normalizeSpan(
    makeSpan({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', ...attrs }, { name: 'chat gpt-4o' }),
  )?.promptVersion;

const fromInstructions = genai({ 'gen_ai.system_instructions': JSON.stringify(PARTS) });

describe('the system prompt from the input history', () => {
  it.each([
    {
      name: 'semconv parts in a system message = the same parts as instructions',
      attrs: { 'gen_ai.input.messages': JSON.stringify([{ role: 'system', parts: PARTS }, user]) },
      same: true,
    },
    {
      name: 're-serialised with other key order and spacing',
      attrs: {
        'gen_ai.input.messages': `[ {"parts": [{"content": "You are a shop assistant.", "type": "text"}], "role": "system"}, ${JSON.stringify(user)}]`,
      },
      same: true,
    },
    {
      name: 'only the first message is parsed: a broken tail is not read',
      attrs: {
        'gen_ai.input.messages': `[${JSON.stringify({ role: 'system', parts: PARTS })}, {"role": "user", "parts": [`,
      },
      same: true,
    },
    {
      name: 'a changed prompt',
      attrs: {
        'gen_ai.input.messages': JSON.stringify([
          { role: 'system', parts: [{ type: 'text', content: 'You are a careful shop assistant.' }] },
          user,
        ]),
      },
      same: false,
    },
  ])('$name', ({ attrs, same }) => {
    const v = genai(attrs);
    expect(v).toMatch(/^[0-9a-f]{16}$/);
    expect(v === fromInstructions).toBe(same);
  });

  it('no system message first: no version; instructions win over the history', () => {
    expect(
      genai({ 'gen_ai.input.messages': JSON.stringify([user, { role: 'system', parts: PARTS }]) }),
    ).toBeUndefined();
    expect(genai({ 'gen_ai.input.messages': JSON.stringify([user]) })).toBeUndefined();
    const other = JSON.stringify([{ role: 'system', parts: [{ type: 'text', content: 'other' }] }, user]);
    expect(genai({ 'gen_ai.system_instructions': JSON.stringify(PARTS), 'gen_ai.input.messages': other })).toBe(
      fromInstructions,
    );
  });

  it("OpenAI's content string, OpenInference's flattened messages and the Vercel AI SDK's prompt messages agree", () => {
    const text = 'You are a shop assistant.';
    const openai = genai({ 'gen_ai.input.messages': JSON.stringify([{ role: 'developer', content: text }]) });
    const oi = dialects.normalizeSpan(
      makeSpan({
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': text,
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': 'refund o1',
      }),
    )?.promptVersion;
    const vercel = dialects.normalizeSpan(
      makeSpan(
        {
          'operation.name': 'ai.generateText.doGenerate',
          'ai.model.id': 'gpt-4o',
          'ai.prompt.messages': JSON.stringify([
            { role: 'system', content: text },
            { role: 'user', content: [{ type: 'text', text: 'refund o1' }] },
          ]),
        },
        { name: 'ai.generateText.doGenerate' },
      ),
    )?.promptVersion;
    expect(openai).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set([openai, oi, vercel]).size).toBe(1);
    expect(
      genai({ 'gen_ai.input.messages': JSON.stringify([{ role: 'system', content: `${text} Be brief.` }]) }),
    ).not.toBe(openai);
  });
});
