import { Registry } from '../../util/registry.js';
/**
 * The adapters by provider name, on the project's Registry (registering a name twice throws).
 * Adding an adapter is its file and one `.register` line in adapters/index.ts; the provider names a
 * suite may use (PROVIDERS) are read from that registry.
 */
export class AdapterRegistry {
    factories = new Registry('eval adapter');
    register(provider, factory, traits = {}) {
        this.factories.register(provider, { factory, traits });
        return this;
    }
    has(provider) {
        return this.factories.get(provider) !== undefined;
    }
    traits(provider) {
        return this.factories.get(provider)?.traits ?? {};
    }
    kinds() {
        return this.factories.list();
    }
    create(spec, opts) {
        const f = this.factories.get(spec.provider);
        if (!f)
            throw new Error(`no adapter for provider ${JSON.stringify(spec.provider)} (known: ${this.kinds().join(', ')})`);
        return f.factory(spec, opts);
    }
}
/** A failure raised while building a request (toolwatch's side, not the provider's). */
export class HarnessError extends Error {
    name = 'HarnessError';
}
//# sourceMappingURL=adapter.js.map