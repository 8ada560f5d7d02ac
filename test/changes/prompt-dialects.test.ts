/**
 * System prompt versions from the dialects that carry the prompt inside the provider request or the
 * chat context rather than in gen_ai.system_instructions: Langfuse's own SDKs (Python and JS), MLflow
 * and LiveKit. Each case takes the model span of the framework's recorded fixture
 * (test/fixtures/dialects/<framework>/) and puts a system prompt where that framework writes it: the
 * fixture as recorded has none (no version); a prompt gives a version; the same prompt re-serialised
 * (other spacing) gives the same one; another prompt another one. A Langfuse generation linked to a
 * managed prompt is versioned by the prompt's name and version.
 */
import { describe, expect, it } from 'vitest';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { loadDialectFixtures } from '../helpers/dialect-fixtures.js';

const dialects = builtinDialects();
const fixtures = new Map(loadDialectFixtures().map((f) => [f.name, f]));

/** The first span of a fixture with this name that carries the attribute. */
function spanOf(fixture: string, name: string, key: string): Span {
  const f = fixtures.get(fixture);
  if (!f) throw new Error(`no fixture ${fixture}`);
  const span = f.spans.find((s) => s.name === name && typeof s.attributes[key] === 'string');
  if (!span) throw new Error(`${fixture}: no ${name} span with ${key}`);
  return span;
}

const withAttr = (span: Span, key: string, value: unknown): Span => ({
  ...span,
  attributes: { ...span.attributes, [key]: value as string },
});

interface Case {
  name: string;
  fixture: string;
  span: string;
  key: string;
  dialect: string;
  /** The attribute's decoded value with a system prompt put where the framework writes it. */
  inject(value: unknown, prompt: string): unknown;
}

const CASES: Case[] = [
  {
    name: 'Langfuse Python SDK (LangChain callback): a system message first in the generation input',
    fixture: 'langfuse-sdk-python',
    span: 'ChatOpenAI',
    key: 'langfuse.observation.input',
    dialect: 'langfuse-otel',
    inject: (v, p) => [{ role: 'system', content: p }, ...(v as unknown[])],
  },
  {
    name: 'Langfuse JS SDK: a system message first in the generation input',
    fixture: 'langfuse-sdk-js',
    span: 'ChatOpenAI',
    key: 'langfuse.observation.input',
    dialect: 'langfuse-otel',
    inject: (v, p) => [{ content: p, role: 'system' }, ...(v as unknown[])],
  },
  {
    name: 'MLflow (OpenAI autolog): the request’s leading system message',
    fixture: 'mlflow',
    span: 'Completions',
    key: 'mlflow.spanInputs',
    dialect: 'mlflow',
    inject: (v, p) => {
      const r = v as { messages: unknown[] };
      return { ...r, messages: [{ role: 'system', content: p }, ...r.messages] };
    },
  },
  {
    name: 'MLflow (Anthropic autolog): the request’s `system`',
    fixture: 'mlflow',
    span: 'Completions',
    key: 'mlflow.spanInputs',
    dialect: 'mlflow',
    inject: (v, p) => ({ ...(v as object), system: p }),
  },
  {
    name: 'LiveKit llm_node: the agent’s instructions, first in lk.chat_ctx',
    fixture: 'livekit',
    span: 'llm_node',
    key: 'lk.chat_ctx',
    dialect: 'livekit',
    inject: (v, p) => {
      const ctx = v as { items: unknown[] };
      return {
        ...ctx,
        items: [{ id: 'lk.agent_task.instructions', type: 'message', role: 'system', content: [p] }, ...ctx.items],
      };
    },
  },
];

describe('system prompt versions from Langfuse, MLflow and LiveKit spans', () => {
  it.each(CASES)('$name', (c) => {
    const span = spanOf(c.fixture, c.span, c.key);
    const read = (s: Span) => {
      const f = dialects.normalizeSpan(s);
      expect(f?.dialect).toBe(c.dialect);
      expect(f?.role).toBe('model');
      return f?.promptVersion;
    };
    const original = JSON.parse(String(span.attributes[c.key]));
    expect(read(span)).toBeUndefined();
    const a = read(withAttr(span, c.key, JSON.stringify(c.inject(original, 'You are a shop assistant.'))));
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    // The same prompt, serialised with other spacing: the same version.
    expect(read(withAttr(span, c.key, JSON.stringify(c.inject(original, 'You are a shop assistant.'), null, 2)))).toBe(
      a,
    );
    const b = read(withAttr(span, c.key, JSON.stringify(c.inject(original, 'You are a careful shop assistant.'))));
    expect(b).toMatch(/^[0-9a-f]{16}$/);
    expect(b).not.toBe(a);
  });

  it('a Langfuse generation linked to a managed prompt is versioned by its name and version', () => {
    const span = spanOf('langfuse-sdk-python', 'ChatOpenAI', 'langfuse.observation.input');
    const linked = (version: unknown) =>
      dialects.normalizeSpan({
        ...span,
        attributes: {
          ...span.attributes,
          'langfuse.observation.prompt.name': 'support-agent',
          'langfuse.observation.prompt.version': version as number,
        },
      })?.promptVersion;
    expect(linked(3)).toBe('support-agent@3');
    expect(linked('4')).toBe('support-agent@4');
    // No version: not a link; the request has no system message either.
    expect(linked(undefined)).toBeUndefined();
  });
});
