/** Generation and tool observations in every shape the Langfuse normalizer must read (shared by the tests). */
export const weatherSchema = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
export const openaiTools = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: weatherSchema } },
];
export const flatTools = [{ type: 'function', name: 'get_weather', parameters: weatherSchema }];
export const anthropicTools = [{ name: 'get_weather', description: 'Weather', input_schema: weatherSchema }];

/** OpenAI chat: {messages, tools} in, an assistant message with tool_calls out. */
export function openaiChat(calls: { id: string; name: string; args: string }[], user = 'Weather in Paris?') {
  return {
    input: {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: user },
      ],
      tools: openaiTools,
    },
    output: {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
    },
  };
}

/** OpenAI Responses API: {input, tools} in, function_call items out. */
export function responsesApi(calls: { id: string; name: string; args: string }[]) {
  return {
    input: { input: [{ role: 'user', content: 'Weather in Rome?' }], tools: flatTools },
    output: [
      { type: 'reasoning', summary: [] },
      ...calls.map((c) => ({
        type: 'function_call',
        id: `fc_${c.id}`,
        call_id: c.id,
        name: c.name,
        arguments: c.args,
      })),
    ],
  };
}

/** Anthropic Messages: tool_use blocks with an input object. */
export function anthropic(calls: { id: string; name: string; input: unknown }[]) {
  return {
    input: {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] }],
      tools: anthropicTools,
      system: 'be brief',
    },
    output: {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input })),
      ],
    },
  };
}

/** LangChain: raw calls in additional_kwargs.tool_calls, the parsed copies in tool_calls. */
export function langchain(calls: { id: string; name: string; args: string }[]) {
  return {
    input: { messages: [{ type: 'human', content: 'Weather in Lima?' }], tools: openaiTools },
    output: {
      type: 'ai',
      content: '',
      additional_kwargs: {
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
      },
      tool_calls: calls.map((c) => ({ id: c.id, name: c.name, args: safeParse(c.args), type: 'tool_call' })),
    },
  };
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return {};
  }
}
