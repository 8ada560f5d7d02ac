/**
 * Expected values beyond one literal — any_of, approx with a tolerance, optional — in every case
 * format, through the case reader and the evaluator that score uses.
 */
import { describe, expect, it } from 'vitest';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { argsProblems, literalEqual } from '../../src/eval/args.js';
import { parseCases } from '../../src/eval/cases.js';
import { evaluate } from '../../src/eval/evaluate.js';
import type { EvalCase } from '../../src/eval/types.js';

const TOOLS = [
  {
    name: 'weather',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['city'],
      properties: {
        city: { type: 'string' },
        lat: { type: 'number' },
        unit: { type: 'string', enum: ['C', 'F'] },
        days: { type: 'integer', minimum: 1 },
      },
    },
  },
];
const schemas = new SchemaCache();
const parse = (...lines: unknown[]) =>
  parseCases(lines.map((l) => JSON.stringify(l)).join('\n'), 'cases.jsonl', {
    tools: TOOLS,
    defaultMaxTurns: 4,
    schemas,
  });

const KINDS: [string, unknown][] = [
  [
    'kind case',
    {
      id: 'k',
      prompt: 'Weather in NYC?',
      expected: {
        kind: 'tool',
        name: 'weather',
        arguments: {
          city: { any_of: ['NYC', 'New York'] },
          lat: { approx: 40.71, tolerance: 0.01 },
          unit: { any_of: ['F'], optional: true },
          days: { optional: true },
        },
      },
    },
  ],
  [
    'call-list case',
    {
      id: 'c',
      user: 'Weather in NYC?',
      expected: [
        {
          name: 'weather',
          arguments: {
            city: { any_of: ['NYC', 'New York'] },
            lat: { approx: 40.71, tolerance: 0.01 },
            unit: { any_of: ['F'], optional: true },
            days: { optional: true },
          },
        },
      ],
    },
  ],
  [
    'expected_tool case (keys the model adds are not checked there)',
    {
      id: 'e',
      user_message: 'Weather in NYC?',
      expected_tool: 'weather',
      expected_args: {
        city: { any_of: ['NYC', 'New York'] },
        lat: { approx: 40.71, tolerance: 0.01 },
        unit: { any_of: ['F'], optional: true },
        days: { optional: true },
      },
    },
  ],
];

const outcome = (args: Record<string, unknown>) => ({
  repeat: 1,
  status: 'ok' as const,
  latencyMs: 1,
  usage: { inputTokens: 0, outputTokens: 0 },
  turns: [
    {
      request: {},
      response: {},
      latencyMs: 1,
      outcome: { kind: 'tool_calls' as const, calls: [{ id: '1', name: 'weather', arguments: JSON.stringify(args) }] },
    },
  ],
});

describe.each(KINDS)('matchers in a %s', (_name, line) => {
  const parsed = parse(line);
  const c = parsed.cases[0] as EvalCase;
  const ctx = { offered: TOOLS, schemas, clarification: /\?/u };
  const judge = (args: Record<string, unknown>) => evaluate(c, outcome(args), ctx);

  it('loads', () => expect(parsed.problems).toEqual([]));
  it.each([
    ['an alternative, within tolerance, optional ones left out', { city: 'New York', lat: 40.705 }, true],
    ['the other alternative, optional ones given', { city: 'NYC', lat: 40.715, unit: 'F', days: 3 }, true],
    ['not an alternative', { city: 'Newark', lat: 40.71 }, false],
    ['outside the tolerance', { city: 'NYC', lat: 40.73 }, false],
    ['an optional argument given with a value not allowed', { city: 'NYC', lat: 40.71, unit: 'C' }, false],
    ['a required (matcher) argument left out', { city: 'NYC' }, false],
  ])('%s', (_n, args, pass) => {
    const e = judge(args);
    expect(e.strictPass).toBe(pass);
    if (!('expected_tool' in (line as object))) expect(e.exactMatch).toBe(pass);
  });
});

describe('matcher errors and the schema check', () => {
  it.each([
    [{ any_of: [] }, 'any_of: must be a non-empty list'],
    [{ approx: 1 }, 'approx needs a tolerance'],
    [{ approx: 'x', tolerance: 1 }, 'approx: must be a number'],
    [{ any_of: [1], tolerance: 1 }, 'tolerance: only with approx'],
    [{ any_of: [1], optional: 'yes' }, 'optional: must be true or false'],
    [{ any_of: [1], also: 1 }, 'unknown key of a value matcher'],
  ])('%j is refused', (value, error) => {
    const r = parse({
      id: 'x',
      prompt: 'p',
      expected: { kind: 'tool', name: 'weather', arguments: { city: 'A', days: value } },
    });
    expect(r.problems.join('\n')).toContain(error);
  });

  it('an alternative that breaks the tool schema rejects the case', () => {
    const r = parse({
      id: 'x',
      user: 'p',
      expected: [{ name: 'weather', arguments: { city: 'A', days: { any_of: [2, 0] } } }],
    });
    expect(r.problems.join('\n')).toContain('break its schema');
    expect(
      parse({ id: 'y', user: 'p', expected: [{ name: 'weather', arguments: { city: 'A', days: { any_of: [2, 3] } } }] })
        .problems,
    ).toEqual([]);
  });

  it('an object without any_of/approx is a literal value', () => {
    const r = parse({ id: 'l', user: 'p', expected: [{ name: 'weather', arguments: { city: 'A' } }] });
    const e = r.cases[0]!.expected;
    if (e.kind !== 'tool') throw new Error('a tool expectation');
    const spec = e.calls[0]!.args!;
    expect(argsProblems(spec, { city: 'A' })).toEqual([]);
    expect(literalEqual({ q: { optional: false } }, { q: { optional: false } })).toBe(true);
  });
});
