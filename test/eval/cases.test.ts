/**
 * cases.jsonl in every form (call-list, kind, expected_tool, canonical), read without conversion into one canonical case; and
 * every kind of bad line reported with file:line.
 */
import { describe, expect, it } from 'vitest';
import { SchemaCache } from '../../src/check/schema-cache.js';
import { parseCases } from '../../src/eval/cases.js';
import type { ToolDef } from '../../src/model.js';

const TOOLS: ToolDef[] = [
  {
    name: 'get_stock',
    parameters: {
      type: 'object',
      properties: { sku: { type: 'string' } },
      required: ['sku'],
      additionalProperties: false,
    },
  },
  {
    name: 'search_orders',
    parameters: {
      type: 'object',
      properties: {
        email: { type: 'string' },
        status: { type: 'string', enum: ['shipped', 'delivered'] },
        limit: { type: 'integer' },
        customer_query: { type: 'string' },
        date_from: { type: 'string' },
      },
      required: [],
    },
  },
];
const opts = { tools: TOOLS, defaultMaxTurns: 4, schemas: new SchemaCache() };
const parse = (lines: unknown[]) =>
  parseCases(lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'), 'cases.jsonl', opts);

describe('case formats', () => {
  it('reads call-list cases: a list of exact calls, [] = must not call', () => {
    const p = parse([
      { id: '002', user: 'SKU-204现在还有库存吗?', expected: [{ name: 'get_stock', arguments: { sku: 'SKU-204' } }] },
      { id: '011', user: '帮我查一下库存', expected: [] },
    ]);
    expect(p.problems).toEqual([]);
    expect(p.cases[0]).toMatchObject({
      id: '002',
      format: 'call-list',
      line: 1,
      messages: [{ role: 'user', content: 'SKU-204现在还有库存吗?' }],
      expected: {
        kind: 'tool',
        calls: [
          {
            name: 'get_stock',
            args: {
              checks: [{ key: 'sku', mode: 'exact', value: 'SKU-204' }],
              extra: 'fail',
              literal: { sku: 'SKU-204' },
            },
          },
        ],
      },
      maxTurns: 1,
      tags: [],
    });
    expect(p.cases[1]).toMatchObject({ id: '011', expected: { kind: 'text' } });
  });

  it('reads kind cases: kinds tool / text / clarification and the requiredEquals form', () => {
    const p = parse([
      {
        id: 's',
        prompt: 'Shipped, sam@example.test',
        expected: {
          kind: 'tool',
          name: 'search_orders',
          arguments: {
            requiredEquals: { email: 'sam@example.test', status: 'shipped' },
            optional: ['limit'],
            constraints: { limit: { integer: true, minimum: 1, maximum: 20 } },
          },
        },
        tags: ['selection', 'enum'],
      },
      { id: 'a', prompt: 'Hello!', expected: { kind: 'text' }, tags: ['abstention'] },
      {
        id: 'c',
        prompt: 'Express to Germany?',
        expected: { kind: 'clarification', missing: ['postal_code'] },
        tags: ['missing-required'],
      },
    ]);
    expect(p.problems).toEqual([]);
    expect(p.cases.map((c) => c.format)).toEqual(['kind', 'kind', 'kind']);
    expect(p.cases[0]!.expected).toEqual({
      kind: 'tool',
      calls: [
        {
          name: 'search_orders',
          args: {
            checks: [
              { key: 'email', mode: 'exact', value: 'sam@example.test' },
              { key: 'status', mode: 'exact', value: 'shipped' },
            ],
            optional: ['limit'],
            constraints: { limit: { integer: true, minimum: 1, maximum: 20 } },
            extra: 'fail',
            literal: { email: 'sam@example.test', status: 'shipped' },
          },
        },
      ],
    });
    expect(p.cases[2]).toMatchObject({
      expected: { kind: 'clarification', missing: ['postal_code'] },
      tags: ['missing-required'],
    });
  });

  it('reads expected_tool cases: expected_tool (null = no call), expected_args, match_mode, context', () => {
    const p = parse([
      {
        id: 'orders-001',
        user_message: 'Ukaž objednávky Nováka',
        context: [
          { role: 'user', content: 'Ahoj' },
          { role: 'assistant', content: 'Dobrý den!' },
        ],
        expected_tool: 'search_orders',
        expected_args: { customer_query: 'Novák', date_from: '2026-08-30' },
        match_mode: { customer_query: 'soft', date_from: 'exact' },
        tags: ['happy-path', 'cs-diacritics'],
      },
      {
        id: 'smalltalk',
        user_message: 'Kolik je hodin?',
        context: [],
        expected_tool: null,
        expected_args: null,
        match_mode: {},
        tags: [],
      },
    ]);
    expect(p.problems).toEqual([]);
    expect(p.cases[0]).toMatchObject({
      format: 'expected-tool',
      messages: [
        { role: 'user', content: 'Ahoj' },
        { role: 'assistant', content: 'Dobrý den!' },
        { role: 'user', content: 'Ukaž objednávky Nováka' },
      ],
      expected: {
        kind: 'tool',
        calls: [
          {
            name: 'search_orders',
            args: {
              checks: [
                { key: 'customer_query', mode: 'soft' },
                { key: 'date_from', mode: 'exact' },
              ],
              extra: 'ignore',
            },
          },
        ],
      },
    });
    expect(p.cases[1]).toMatchObject({ expected: { kind: 'text' } });
  });

  it('reads the canonical form: messages with history, own tools, canned results, trajectory, export fields', () => {
    const p = parse([
      {
        id: 'prod-7f3a',
        messages: [
          { role: 'user', content: 'Where is my order? sam@example.test' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'c1',
                type: 'function',
                function: { name: 'search_orders', arguments: '{"email":"sam@example.test"' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'error' },
          { role: 'user', content: 'Try again please' },
        ],
        tools: [{ name: 'search_orders', input_schema: { type: 'object', properties: { email: { type: 'string' } } } }],
        expected_trajectory: {
          calls: [{ name: 'search_orders', arguments: { email: 'sam@example.test' } }],
          match: 'superset',
          tool_args_match_mode: 'subset',
          tool_args_match_overrides: { search_orders: ['email'] },
        },
        tool_results: { search_orders: [{ error: { code: 'TIMEOUT' } }, { result: [] }] },
        trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
        observed: { outcome: 'InvalidJson' },
        review: false,
      },
    ]);
    expect(p.problems).toEqual([]);
    const c = p.cases[0]!;
    expect(c).toMatchObject({
      format: 'canonical',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      maxTurns: 4,
      observed: { outcome: 'InvalidJson' },
    });
    expect(c.tools!.map((t) => t.name)).toEqual(['search_orders']);
    expect(c.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c1', name: 'search_orders', arguments: '{"email":"sam@example.test"' }],
    });
    expect(c.expected).toEqual({
      kind: 'trajectory',
      calls: [{ name: 'search_orders', arguments: { email: 'sam@example.test' } }],
      match: 'superset',
      argsMode: 'subset',
      argsOverrides: { search_orders: ['email'] },
    });
    expect(c.toolResults).toEqual({ search_orders: [{ error: { code: 'TIMEOUT' } }, { result: [] }] });
  });

  it('skips and counts an exported case still waiting for review; accepts it once expected is filled', () => {
    const p = parse([
      {
        id: 'prod-1',
        messages: [{ role: 'user', content: 'x' }],
        expected: null,
        review: true,
        trace_id: 'abc',
        observed: { name: 'get_stock' },
      },
      {
        id: 'prod-2',
        messages: [{ role: 'user', content: 'y' }],
        expected: { kind: 'text' },
        review: true,
        trace_id: 'def',
      },
    ]);
    expect(p.problems).toEqual([]);
    expect(p.skipped).toEqual([{ id: 'prod-1', file: 'cases.jsonl', line: 1, reason: 'review', traceId: 'abc' }]);
    expect(p.cases.map((c) => c.id)).toEqual(['prod-2']);
  });
});

describe('bad case lines: file:line and what is wrong', () => {
  const table: [string, unknown[], string][] = [
    [
      'malformed JSON',
      ['{"id":"1","user":"x","expected":[]}', '{"id": "2", "user": '],
      'cases.jsonl:2: not valid JSON',
    ],
    [
      'unknown expected kind',
      [{ id: 'k', prompt: 'x', expected: { kind: 'maybe' } }],
      'cases.jsonl:1: case "k": expected.kind: unknown kind "maybe" (known: tool, text, clarification)',
    ],
    [
      'tool missing from tools.json',
      [{ id: 't', user: 'x', expected: [{ name: 'delete_item', arguments: {} }] }],
      'cases.jsonl:1: case "t": expected tool "delete_item" is not in tools.json (offered: get_stock, search_orders)',
    ],
    [
      'expected_tool case: tool missing',
      [{ id: 't1', user_message: 'x', expected_tool: 'nope', expected_args: {}, match_mode: {} }],
      'is not in tools.json',
    ],
    [
      'duplicate id',
      [
        { id: 'd', user: 'x', expected: [] },
        { id: 'd', user: 'y', expected: [] },
      ],
      'cases.jsonl:2: duplicate case id "d" (first on line 1)',
    ],
    [
      'no expectation',
      [{ id: 'n', user: 'x' }],
      'cases.jsonl:1: case "n": no expectation: give expected, expected_tool or expected_trajectory',
    ],
    ['two inputs', [{ id: 'i', user: 'x', prompt: 'y', expected: [] }], 'give one input, not user and prompt'],
    ['unknown key', [{ id: 'u', user: 'x', expected: [], expexted: [] }], 'cases.jsonl:1: unknown key(s) "expexted"'],
    [
      'bad match mode',
      [
        {
          id: 'm',
          user_message: 'x',
          expected_tool: 'get_stock',
          expected_args: { sku: 'A' },
          match_mode: { sku: 'fuzzy' },
        },
      ],
      'match_mode.sku: must be one of exact, soft, ignore, judge, similar or {similar: threshold}',
    ],
    [
      'expected args break the schema',
      [{ id: 'b', user: 'x', expected: [{ name: 'get_stock', arguments: { sku: 204 } }] }],
      'expected arguments of "get_stock" break its schema (/sku must be string)',
    ],
    [
      'unknown constraint',
      [
        {
          id: 'c',
          prompt: 'x',
          expected: {
            kind: 'tool',
            name: 'search_orders',
            arguments: {
              requiredEquals: { email: 'a' },
              optional: ['limit'],
              constraints: { limit: { between: [1, 2] } },
            },
          },
        },
      ],
      'constraints.limit.between: unknown constraint',
    ],
    [
      'bad trajectory mode',
      [{ id: 'tm', user: 'x', expected_trajectory: { calls: [], match: 'fuzzy' } }],
      'expected_trajectory.match: must be one of strict, unordered, subset, superset',
    ],
    [
      'tool result for an unknown tool',
      [{ id: 'tr', user: 'x', expected: [], tool_results: { rm_rf: { result: 1 } } }],
      'tool_results.rm_rf: not an offered tool',
    ],
    [
      'tool message answering nothing',
      [
        {
          id: 'h',
          messages: [
            { role: 'user', content: 'x' },
            { role: 'tool', tool_call_id: 'zz', content: '' },
          ],
          expected: { kind: 'text' },
        },
      ],
      'answers no earlier tool call',
    ],
    [
      'review: true but not a boolean',
      [{ id: 'r', user: 'x', expected: [], review: 'yes' }],
      'review: must be true or false',
    ],
    [
      'an empty export case without review',
      [{ id: 'e', messages: [{ role: 'user', content: 'x' }], expected: null }],
      'needs review: true',
    ],
  ];
  it.each(table)('%s', (_name, lines, message) => {
    const p = parse(lines);
    expect(p.problems.join('\n')).toContain(message);
  });

  it('reports every bad line, not just the first', () => {
    const p = parse([
      'nope',
      { id: 'x', user: 'a', expected: { kind: '?' } },
      { id: 'ok', user: 'b', expected: [] },
      '{',
    ]);
    expect(p.problems.map((x) => x.split(':').slice(0, 2).join(':'))).toEqual([
      'cases.jsonl:1',
      'cases.jsonl:2',
      'cases.jsonl:4',
    ]);
  });
});
