import { beforeEach, describe, expect, it } from 'vitest';
import type { DialectReader, Dialects } from '../../src/normalize/dialect.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { baseFacts } from '../../src/normalize/facts.js';
import { makeSpan } from '../helpers/spans.js';

const DEFAULT = [
  'langfuse-otel',
  'vercel-ai',
  'openinference',
  'mlflow',
  'google-adk',
  'pydantic-ai',
  'livekit',
  'flue',
  'logfire',
  'genai-legacy',
  'genai',
];

describe('dialect registry', () => {
  // Built per service instance: each test gets its own, nothing to undo afterwards.
  let dialects: Dialects;
  beforeEach(() => {
    dialects = builtinDialects();
  });

  it('has the default readers in precedence order', () => {
    expect(dialects.list()).toEqual(DEFAULT);
  });

  it('returns undefined for spans that say nothing about models or tools', () => {
    expect(
      dialects.normalizeSpan(makeSpan({ 'http.method': 'GET', 'http.route': '/x' }, { name: 'GET /x' })),
    ).toBeUndefined();
    expect(
      dialects.normalizeSpans([makeSpan({}), makeSpan({ 'gen_ai.operation.name': 'chat' })]).map((f) => f.dialect),
    ).toEqual(['genai']);
  });

  it('Vercel do* spans carrying gen_ai.* too are read by vercel-ai', () => {
    const f = dialects.normalizeSpan(
      makeSpan({
        'ai.operationId': 'ai.generateText.doGenerate',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'm',
      }),
    )!;
    expect(f.dialect).toBe('vercel-ai');
  });

  it('OpenInference spans carrying gen_ai.* too are read by openinference', () => {
    const f = dialects.normalizeSpan(makeSpan({ 'openinference.span.kind': 'LLM', 'gen_ai.operation.name': 'chat' }))!;
    expect(f.dialect).toBe('openinference');
  });

  it('a new dialect is added by registering a reader, optionally ahead of another', () => {
    const custom: DialectReader = {
      name: 'custom',
      matches: (s) => s.attributes['custom.kind'] !== undefined,
      read: (s) => {
        const f = baseFacts(s, 'custom', 'model');
        f.model = 'custom-model';
        return f;
      },
    };
    dialects.add(custom, { before: 'genai' });
    expect(dialects.list()).toEqual([...DEFAULT.slice(0, -1), 'custom', 'genai']);
    const f = dialects.normalizeSpan(makeSpan({ 'custom.kind': 'x', 'gen_ai.operation.name': 'chat' }))!;
    expect(f).toMatchObject({ dialect: 'custom', model: 'custom-model', proposals: [] });
    expect(f.replays).toEqual([]);
  });

  it('a name is registered once', () => {
    expect(() =>
      dialects.add({ name: 'genai', matches: () => false, read: (s) => baseFacts(s, 'genai', 'other') }),
    ).toThrow(/already registered/);
    expect(builtinDialects().list()).toEqual(DEFAULT); // another instance is untouched
  });

  it('a reader that throws yields bare facts instead of breaking the batch', () => {
    dialects.add(
      {
        name: 'broken',
        matches: (s) => s.attributes['broken'] !== undefined,
        read: () => {
          throw new Error('bug');
        },
      },
      { before: 'vercel-ai' },
    );
    const f = dialects.normalizeSpan(makeSpan({ broken: true }, { statusCode: 2, statusMessage: 'x' }))!;
    expect(f).toMatchObject({ dialect: 'broken', role: 'other', proposals: [], replays: [], error: 'x' });
  });
});
