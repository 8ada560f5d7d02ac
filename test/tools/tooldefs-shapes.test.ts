/** Definition shapes beyond OpenAI/flat/Vercel/Anthropic (src/tools/tooldefs.ts). */
import { describe, expect, it } from 'vitest';
import { parseToolDefs, toToolDef } from '../../src/tools/tooldefs.js';

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

describe('definition shapes', () => {
  it.each([
    ['Bedrock Converse toolSpec', { toolSpec: { name: 'w', description: 'd', inputSchema: { json: schema } } }],
    [
      'Strands ToolSpec (inputSchema {json})',
      { name: 'w', description: 'd', inputSchema: { json: schema }, outputSchema: null },
    ],
    [
      'Pydantic AI parameters_json_schema',
      { name: 'w', description: 'd', parameters_json_schema: schema, strict: true, kind: 'function' },
    ],
    ['OpenAI-wrapped', { type: 'function', function: { name: 'w', description: 'd', parameters: schema } }],
  ])('%s', (_name, def) => {
    expect(toToolDef(def)).toEqual({ name: 'w', description: 'd', parameters: schema });
  });

  it('Gemini Schema (Google ADK): capital types and snake_case keywords become JSON Schema', () => {
    const gemini = {
      name: 'w',
      parameters: {
        type: 'OBJECT',
        properties: {
          city: { type: 'STRING', min_length: 1 },
          days: { type: 'ARRAY', items: { type: 'INTEGER' }, max_items: 7 },
          unit: { any_of: [{ type: 'STRING', enum: ['c', 'f'] }, { type: 'NULL' }] },
          free: { type: 'TYPE_UNSPECIFIED', description: 'anything' },
        },
        required: ['city'],
        property_ordering: ['city', 'days'],
      },
    };
    expect(toToolDef(gemini)?.parameters).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 1 },
        days: { type: 'array', items: { type: 'integer' }, maxItems: 7 },
        unit: { anyOf: [{ type: 'string', enum: ['c', 'f'] }, { type: 'null' }] },
        free: { description: 'anything' },
      },
      required: ['city'],
      property_ordering: ['city', 'days'],
    });
  });

  it('a lower-case JSON Schema is left as it is (the same object)', () => {
    const def = toToolDef({ name: 'w', parameters: schema });
    expect(def?.parameters).toBe(schema);
  });

  it('Gemini function_declarations groups in a tools list (ADK llm_request config.tools)', () => {
    const defs = parseToolDefs([
      { function_declarations: [{ name: 'a', parameters: { type: 'OBJECT', properties: {} } }, { name: 'b' }] },
    ]);
    expect(defs).toEqual([{ name: 'a', parameters: { type: 'object', properties: {} } }, { name: 'b' }]);
  });

  it('a Bedrock entry that is no tool (cachePoint) is skipped', () => {
    expect(
      parseToolDefs([
        { cachePoint: { type: 'default' } },
        { toolSpec: { name: 'x', inputSchema: { json: schema } } },
      ])?.map((d) => d.name),
    ).toEqual(['x']);
  });
});
