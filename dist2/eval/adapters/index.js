/**
 * The adapters toolwatch ships, in a fresh registry per caller (tests and embedders add their own).
 * Adding one: its file, and one `.register` line here; PROVIDERS (the names suite.yaml and
 * --provider accept) is read from this registry.
 */
import { AdapterRegistry } from './adapter.js';
import { createAnthropicMessagesAdapter } from './anthropic-messages.js';
import { createGeminiAdapter } from './gemini.js';
import { createOpenAIChatAdapter } from './openai-chat.js';
import { createOpenAIResponsesAdapter } from './openai-responses.js';
export function createAdapterRegistry() {
    return new AdapterRegistry()
        .register('openai', createOpenAIChatAdapter, { stream: true })
        .register('anthropic', createAnthropicMessagesAdapter, { stream: true })
        .register('openai-responses', createOpenAIResponsesAdapter)
        .register('gemini', createGeminiAdapter);
}
const shipped = createAdapterRegistry();
/** The provider names of the shipped adapters, in registration order. */
export const PROVIDERS = Object.freeze(shipped.kinds());
/** The providers whose adapter implements `stream: true`. */
export const STREAMING_PROVIDERS = Object.freeze(PROVIDERS.filter((p) => shipped.traits(p).stream));
//# sourceMappingURL=index.js.map