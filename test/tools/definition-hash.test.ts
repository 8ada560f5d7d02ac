/** Canonical definition versions (src/tools/definition-hash.ts) over every shape tooldefs.ts reads. */
import { describe, expect, it } from 'vitest';
import type { ToolDef } from '../../src/model.js';
import {
  canonicalDefinition,
  definitionVersion,
  promptVersion,
  toolSetVersion,
} from '../../src/tools/definition-hash.js';
import { parseToolDefs, toToolDef } from '../../src/tools/tooldefs.js';

const schema = {
  type: 'object',
  properties: {
    order_id: { type: 'string', description: 'The order' },
    amount: { type: 'number', minimum: 0 },
    reason: { type: 'string', enum: ['damaged', 'late'] },
  },
  required: ['order_id', 'amount'],
};
/** The same schema with every object's keys in another order and `required` reordered. */
const reordered = {
  required: ['amount', 'order_id'],
  properties: {
    reason: { enum: ['damaged', 'late'], type: 'string' },
    amount: { minimum: 0, type: 'number' },
    order_id: { description: 'The order', type: 'string' },
  },
  type: 'object',
};
const name = 'refund_order';
const description = 'Refund an order.';

const one = (v: unknown): ToolDef => {
  const defs = parseToolDefs(v);
  expect(defs).toHaveLength(1);
  return defs![0]!;
};

const shapes: [string, unknown][] = [
  ['OpenAI', [{ type: 'function', function: { name, description, parameters: schema } }]],
  [
    'OpenAI as a JSON string',
    JSON.stringify([{ type: 'function', function: { name, description, parameters: schema } }]),
  ],
  [
    'OpenAI, pretty-printed string',
    JSON.stringify([{ type: 'function', function: { name, description, parameters: schema } }], null, 2),
  ],
  ['flat', [{ name, description, parameters: schema }]],
  ['Anthropic input_schema', [{ name, description, input_schema: schema }]],
  [
    'Vercel ai.prompt.tools (list of JSON strings)',
    [JSON.stringify({ type: 'function', name, description, inputSchema: schema })],
  ],
  ['MCP tools/list inputSchema', { tools: [{ name, description, inputSchema: schema }] }],
  ['Bedrock toolSpec {json}', [{ toolSpec: { name, description, inputSchema: { json: schema } } }]],
  ['schema as a JSON string', [{ name, description, parameters: JSON.stringify(schema) }]],
  ['keys and required reordered', [{ parameters: reordered, description, name }]],
  ['description whitespace', [{ name, description: `  Refund\n an   order.\n`, parameters: schema }]],
  [
    'Gemini Schema',
    [
      {
        function_declarations: [
          {
            name,
            description,
            parameters: {
              type: 'OBJECT',
              properties: {
                order_id: { type: 'STRING', description: 'The order' },
                amount: { type: 'NUMBER', minimum: 0 },
                reason: { type: 'STRING', enum: ['damaged', 'late'] },
              },
              required: ['order_id', 'amount'],
            },
          },
        ],
      },
    ],
  ],
];

describe('definition versions', () => {
  const base = definitionVersion(one(shapes[0]![1]));

  it('is 16 hex digits', () => {
    expect(base).toMatch(/^[0-9a-f]{16}$/);
  });

  it.each(shapes)('%s gives the same version', (_label, v) => {
    expect(definitionVersion(one(v))).toBe(base);
  });

  const changed: [string, ToolDef][] = [
    ['a changed description', { name, description: 'Refund an order (amount in cents).', parameters: schema }],
    ['another name', { name: 'refund', description, parameters: schema }],
    ['amount no longer required', { name, description, parameters: { ...schema, required: ['order_id'] } }],
    [
      'an enum value more',
      {
        name,
        description,
        parameters: {
          ...schema,
          properties: { ...schema.properties, reason: { type: 'string', enum: ['damaged', 'late', 'other'] } },
        },
      },
    ],
    [
      'enum order changed',
      {
        name,
        description,
        parameters: {
          ...schema,
          properties: { ...schema.properties, reason: { type: 'string', enum: ['late', 'damaged'] } },
        },
      },
    ],
    [
      'a property type changed',
      {
        name,
        description,
        parameters: { ...schema, properties: { ...schema.properties, amount: { type: 'integer', minimum: 0 } } },
      },
    ],
    ['no schema', { name, description }],
  ];
  it.each(changed)('%s gives a new version', (_label, def) => {
    expect(definitionVersion(def)).not.toBe(base);
  });

  it('no description and an empty one are the same; no parameters is null', () => {
    expect(canonicalDefinition({ name: 'x' })).toEqual({ name: 'x', description: '', parameters: null });
    expect(definitionVersion({ name: 'x' })).toBe(definitionVersion({ name: 'x', description: '' }));
  });

  it('a property called "required" is a schema, not a list to sort', () => {
    const p = { type: 'object', properties: { required: { type: 'array', items: { type: 'string' } } } };
    expect(canonicalDefinition({ name: 'x', parameters: p }).parameters).toEqual(p);
  });

  it('enum data keeps its order; object values inside it get sorted keys', () => {
    const p = { enum: [{ b: 1, a: 2 }, 'z', 'a'] };
    expect(JSON.stringify(canonicalDefinition({ name: 'x', parameters: p }).parameters)).toBe(
      '{"enum":[{"a":2,"b":1},"z","a"]}',
    );
  });

  it('is cached by the (frozen, shared) definition object', () => {
    const s = JSON.stringify([{ name: 'cached', description: 'd' }]);
    const a = one(s);
    const b = one(s);
    expect(a).toBe(b);
    expect(definitionVersion(a)).toBe(definitionVersion(b));
    // an unfrozen def is hashed each time and so sees an edit
    const open: ToolDef = { name: 'open', description: 'a' };
    const v1 = definitionVersion(open);
    open.description = 'b';
    expect(definitionVersion(open)).not.toBe(v1);
  });
});

describe('tool set versions', () => {
  it('ignore order and repeats, see a tool added or removed', () => {
    const a = toToolDef({ name: 'a' })!;
    const b = toToolDef({ name: 'b' })!;
    const c = toToolDef({ name: 'c' })!;
    expect(toolSetVersion([a, b])).toBe(toolSetVersion([b, a, a]));
    expect(toolSetVersion([a, b])).not.toBe(toolSetVersion([a, b, c]));
    expect(toolSetVersion([a, b])).not.toBe(toolSetVersion([a]));
    expect(toolSetVersion([])).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('prompt versions', () => {
  it('re-serialised instructions are one version, changed text a new one, empty none', () => {
    const a = promptVersion('[{"type": "text", "content": "You are a helpful assistant."}]');
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(promptVersion('[{"content":"You are a helpful assistant.","type":"text"}]')).toBe(a);
    expect(promptVersion('[{"type": "text", "content": "You are a terse assistant."}]')).not.toBe(a);
    expect(promptVersion('  plain text prompt \n')).toBe(promptVersion('plain text prompt'));
    expect(promptVersion('   ')).toBeUndefined();
  });

  it('is read from gen_ai.system_instructions (Microsoft Agent Framework fixture); the text is not kept', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(
      new URL('../fixtures/dialects/microsoft-agent-framework/trace.json', import.meta.url),
      'utf8',
    );
    expect(text).toContain('gen_ai.system_instructions');
    const { readGenAiCommon } = await import('../../src/normalize/genai.js');
    const f = { proposals: [], replays: [] } as unknown as import('../../src/model.js').SpanFacts;
    readGenAiCommon(
      { 'gen_ai.system_instructions': '[{"type": "text", "content": "You are a helpful assistant."}]' },
      f,
    );
    expect(f.promptVersion).toBe(promptVersion('[{"type":"text","content":"You are a helpful assistant."}]'));
    expect(JSON.stringify(f)).not.toContain('helpful');
  });
});
