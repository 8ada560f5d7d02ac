/** The adapters toolwatch ships, in a fresh registry per caller (tests and embedders add their own). */
import { AdapterRegistry } from './adapter.js';
import { createAnthropicMessagesAdapter } from './anthropic-messages.js';
import { createOpenAIChatAdapter } from './openai-chat.js';
import { createOpenAIResponsesAdapter } from './openai-responses.js';

export function createAdapterRegistry(): AdapterRegistry {
  return new AdapterRegistry()
    .register('openai', createOpenAIChatAdapter)
    .register('anthropic', createAnthropicMessagesAdapter)
    .register('openai-responses', createOpenAIResponsesAdapter);
}
