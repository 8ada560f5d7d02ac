/**
 * The port every provider adapter implements, and the per-instance registry they live in. An
 * adapter maps canonical messages and tools to its protocol's request, and the answer back to one
 * canonical outcome (tool_calls | text | refusal | provider_error). It never throws and never
 * touches arguments: they stay exactly as the provider sent them.
 */
import type { ToolDef } from '../../model.js';
import { Registry } from '../../util/registry.js';
import type { RetryPolicy } from '../retry.js';
import type { ToolChoice } from '../tool-choice.js';
import type { ModelSpec } from '../suite.js';
import type { AdapterTransform, CanonicalOutcome, Message, Usage } from '../types.js';

export interface AdapterRequest {
  messages: readonly Message[];
  tools: readonly ToolDef[];
  temperature?: number;
  maxTokens?: number;
  /** Default auto (tool-choice.ts maps it per protocol). */
  toolChoice?: ToolChoice;
}

export interface AdapterResult {
  outcome: CanonicalOutcome;
  /** The request body as sent (never headers, so never a key). */
  request: unknown;
  /** The response body as received (or the error status and body). */
  response: unknown;
  /** Of the last attempt. */
  latencyMs: number;
  usage?: Usage;
  attempts: number;
  /** The tools as the protocol had to rewrite them (recorded on the turn). */
  transform?: AdapterTransform;
}

export interface ModelAdapter {
  readonly provider: string;
  readonly model: string;
  complete(req: AdapterRequest): Promise<AdapterResult>;
}

export interface AdapterOptions {
  apiKey?: string;
  timeoutMs: number;
  retry: RetryPolicy;
  now?: () => number;
}

/** What an adapter supports beyond one request and answer (suite.yaml is checked against it). */
export interface AdapterTraits {
  /** `stream: true` on a model is implemented. */
  stream?: boolean;
}

export type AdapterFactory = (spec: ModelSpec, opts: AdapterOptions) => ModelAdapter;

/**
 * The adapters by provider name, on the project's Registry (registering a name twice throws).
 * Adding an adapter is its file and one `.register` line in adapters/index.ts; the provider names a
 * suite may use (PROVIDERS) are read from that registry.
 */
export class AdapterRegistry {
  private readonly factories = new Registry<{ factory: AdapterFactory; traits: AdapterTraits }>('eval adapter');

  register(provider: string, factory: AdapterFactory, traits: AdapterTraits = {}): this {
    this.factories.register(provider, { factory, traits });
    return this;
  }

  has(provider: string): boolean {
    return this.factories.get(provider) !== undefined;
  }

  traits(provider: string): AdapterTraits {
    return this.factories.get(provider)?.traits ?? {};
  }

  kinds(): string[] {
    return this.factories.list();
  }

  create(spec: ModelSpec, opts: AdapterOptions): ModelAdapter {
    const f = this.factories.get(spec.provider);
    if (!f)
      throw new Error(`no adapter for provider ${JSON.stringify(spec.provider)} (known: ${this.kinds().join(', ')})`);
    return f.factory(spec, opts);
  }
}

/** A failure raised while building a request (toolwatch's side, not the provider's). */
export class HarnessError extends Error {
  override name = 'HarnessError';
}
