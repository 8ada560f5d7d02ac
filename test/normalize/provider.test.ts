/**
 * The provider that served a call (src/normalize/provider.ts), read by the dialect registry from
 * span attributes as routers' instrumentations record them: the provider named, a router's
 * upstream (Vercel AI SDK + OpenRouter's providerMetadata, OpenRouter's raw response in
 * OpenInference's output.value), LiteLLM's `hidden_params.api_base`, and `server.address`.
 */
import { describe, expect, it } from 'vitest';
import type { Span } from '../../src/model.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { makeSpan } from '../helpers/spans.js';

const dialects = builtinDialects();

const span = (attributes: Record<string, unknown>, name = 'chat'): Span => makeSpan(attributes, { name });

const read = (s: Span) => dialects.normalizeSpan(s)?.provider;

const ROWS: { name: string; span: Span; provider: string | undefined }[] = [
  {
    name: 'GenAI semconv: the provider named',
    span: span({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai' }),
    provider: 'openai',
  },
  {
    name: 'GenAI semconv with server.address',
    span: span({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'server.address': 'api.openai.com',
    }),
    provider: 'openai@api.openai.com',
  },
  {
    name: 'the OpenAI SDK pointed at OpenRouter: the host is all there is',
    span: span({ 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'server.address': 'openrouter.ai' }),
    provider: 'openai@openrouter.ai',
  },
  {
    name: 'LiteLLM: gen_ai.system is the provider it routed to, hidden_params.api_base the host',
    span: span({
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.system': 'azure',
      hidden_params: JSON.stringify({ custom_llm_provider: 'azure', api_base: 'https://eu1.openai.azure.com/openai/' }),
    }),
    provider: 'azure@eu1.openai.azure.com',
  },
  {
    name: 'Vercel AI SDK + OpenRouter: providerMetadata.openrouter.provider',
    span: span(
      {
        'operation.name': 'ai.generateText.doGenerate',
        'ai.model.provider': 'openrouter.chat',
        'ai.model.id': 'anthropic/claude-sonnet-4',
        'ai.response.providerMetadata': JSON.stringify({ openrouter: { provider: 'Amazon Bedrock', usage: {} } }),
      },
      'ai.generateText.doGenerate',
    ),
    provider: 'openrouter.chat/Amazon Bedrock',
  },
  {
    name: "OpenInference over OpenRouter: the response body's provider",
    span: span({
      'openinference.span.kind': 'LLM',
      'llm.provider': 'openrouter',
      'llm.model_name': 'meta-llama/llama-3.3-70b-instruct',
      'output.value': JSON.stringify({ id: 'gen-1', provider: 'Together', choices: [] }),
    }),
    provider: 'openrouter/Together',
  },
  {
    name: 'OpenInference elsewhere: a provider key in an ordinary answer is not read',
    span: span({
      'openinference.span.kind': 'LLM',
      'llm.provider': 'openai',
      'output.value': JSON.stringify({ provider: 'not a router' }),
    }),
    provider: 'openai',
  },
];

describe('the provider that served a call', () => {
  it.each(ROWS)('$name', (row) => {
    expect(read(row.span)).toBe(row.provider);
  });
});
