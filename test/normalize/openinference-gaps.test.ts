/** What OpenInference instrumentations write beyond the spec (src/normalize/openinference-gaps.ts), row by row. */
import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { makeSpan } from '../helpers/spans.js';
import { c, summarize } from './summary.js';

const dialects = builtinDialects();

const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
const tool = (attrs: Record<string, unknown>, name = 'span') =>
  dialects.normalizeSpan(makeSpan({ 'openinference.span.kind': 'TOOL', ...attrs }, { name }))!;
const llm = (attrs: Record<string, unknown>) =>
  dialects.normalizeSpan(makeSpan({ 'openinference.span.kind': 'LLM', ...attrs }))!;

describe('OpenInference TOOL spans', () => {
  it('tool.parameters holding a schema is the definition (CrewAI, LlamaIndex); arguments come from input.value', () => {
    const f = tool({ 'tool.name': 'search', 'tool.parameters': JSON.stringify(schema), 'input.value': '{"q":"x"}' });
    expect(f.offered).toEqual([{ name: 'search', parameters: schema }]);
    expect(summarize(f).execution).toMatchObject({ name: 'search', kind: 'string', raw: '{"q":"x"}' });
  });

  it.each([
    [
      'Agno: arguments in tool.parameters and input.value',
      { 'tool.name': 'search', 'tool.parameters': '{"query": "cake type"}', 'input.value': '{"query": "cake type"}' },
      '{"query": "cake type"}',
    ],
    [
      'BeeAI JS: arguments in tool.parameters only',
      { 'tool.name': 'search', 'tool.parameters': '{"query":"cake"}' },
      '{"query":"cake"}',
    ],
    [
      'an argument called "type" is no schema',
      { 'tool.name': 'search', 'tool.parameters': '{"type":"news","query":"x"}' },
      '{"type":"news","query":"x"}',
    ],
  ])('%s: no definition, the value is the arguments', (_name, attrs, raw) => {
    const f = tool(attrs);
    expect(f.offered).toBeUndefined();
    expect(summarize(f).execution).toMatchObject({ name: 'search', kind: 'string', raw });
  });

  it('an empty tool.parameters is empty arguments, not an "accepts anything" definition', () => {
    const f = tool({ 'tool.name': 'ping', 'tool.parameters': '{}' });
    expect(f.offered).toBeUndefined();
    expect(summarize(f).execution).toMatchObject({ kind: 'string', raw: '{}' });
  });

  it('the call id is tool.id (spec) or tool_call.id', () => {
    expect(tool({ 'tool.name': 'a', 'tool.id': 'call_1' }).execution?.callId).toBe('call_1');
    expect(tool({ 'tool.name': 'a', 'tool_call.id': 'call_2' }).execution?.callId).toBe('call_2');
  });

  it('Google ADK: empty arguments only in gcp.vertex.agent.tool_call_args; "<not specified>" is no id', () => {
    const f = tool({
      'tool.name': 'say_hello',
      'gcp.vertex.agent.tool_call_args': '{}',
      'gen_ai.tool.call.id': '<not specified>',
    });
    expect(summarize(f).execution).toMatchObject({ name: 'say_hello', kind: 'string', raw: '{}' });
    expect(f.execution?.callId).toBeUndefined();
  });

  it('LlamaIndex: a wrapped {args: [], kwargs: {…}} input is the keyword arguments', () => {
    const f = tool({ 'tool.name': 'multiply', 'input.value': '{"args": [], "kwargs": {"a": 3}}' });
    expect(summarize(f).execution).toMatchObject({ kind: 'structured', raw: '{"a":3}' });
  });

  it('BeeAI: only the success/error event span is the execution, named after its target', () => {
    const ev = (name: string) =>
      tool({ name, target: `tool.search.wikipedia.${name}`, 'tool.parameters': '{"query":"x"}' });
    expect(['start', 'finish', 'retry'].map((n) => ev(n).role)).toEqual(['other', 'other', 'other']);
    expect(ev('start').execution).toBeUndefined();
    expect(summarize(ev('success')).execution).toMatchObject({ name: 'search.wikipedia', raw: '{"query":"x"}' });
  });

  it('OpenAI Agents: a handoff span is no execution', () => {
    const f = tool({ 'input.value': 'Triage agent', 'output.value': 'Billing agent' }, 'handoff to Billing agent');
    expect(f.role).toBe('other');
    expect(f.execution).toBeUndefined();
  });
});

describe('OpenInference LLM spans', () => {
  it('definitions only in llm.invocation_parameters: tools, or the older functions', () => {
    expect(
      llm({
        'llm.invocation_parameters': JSON.stringify({
          tools: [{ type: 'function', function: { name: 'a', parameters: schema } }],
        }),
      }).offered?.map((d) => d.name),
    ).toEqual(['a']);
    expect(
      llm({
        'llm.invocation_parameters': JSON.stringify({ functions: [{ name: 'b', parameters: schema }] }),
      }).offered?.map((d) => d.name),
    ).toEqual(['b']);
    expect(llm({ 'llm.invocation_parameters': JSON.stringify({ temperature: 0 }) }).offered).toBeUndefined();
  });

  it('llm.tools wins over llm.invocation_parameters', () => {
    const f = llm({
      'llm.tools.0.tool.json_schema': JSON.stringify({ name: 'x', parameters: schema }),
      'llm.invocation_parameters': JSON.stringify({ tools: [{ name: 'y' }] }),
    });
    expect(f.offered?.map((d) => d.name)).toEqual(['x']);
  });

  it('Bedrock Converse definitions {toolSpec:{inputSchema:{json}}}; a cachePoint entry is no tool', () => {
    const f = llm({
      'llm.tools.0.tool.json_schema': JSON.stringify({
        toolSpec: { name: 'get', description: 'd', inputSchema: { json: schema } },
      }),
      'llm.tools.1.tool.json_schema': JSON.stringify({ cachePoint: { type: 'default' } }),
    });
    expect(f.offered).toEqual([{ name: 'get', description: 'd', parameters: schema }]);
  });

  it('Agno: a raw chat.completion in output.value when there are no output messages', () => {
    const completion = {
      object: 'chat.completion',
      choices: [
        {
          message: {
            role: 'assistant',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }],
          },
        },
      ],
    };
    expect(summarize(llm({ 'output.value': JSON.stringify(completion) })).proposals).toEqual([
      c('call_1', 'search', '{"q":"x"}'),
    ]);
    // Output messages present: they are the proposals, output.value is not read again.
    const both = llm({
      'output.value': JSON.stringify(completion),
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'hi',
    });
    expect(both.proposals).toEqual([]);
  });

  it('Google ADK: arguments the OpenInference keys left out come from gcp.vertex.agent.llm_response', () => {
    const f = llm({
      'llm.output_messages.0.message.role': 'model',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'say_hello',
      'gcp.vertex.agent.llm_response': JSON.stringify({
        content: { role: 'model', parts: [{ function_call: { args: {}, name: 'say_hello' } }] },
      }),
    });
    expect(summarize(f).proposals).toEqual([c(undefined, 'say_hello', '{}', 'structured')]);
  });
});
