import { Registry } from '../util/registry.js';
import { baseFacts } from './facts.js';
import { setFinishReasons } from './finish-reasons.js';
export class Dialects extends Registry {
    readers = [];
    constructor() {
        super('dialect');
    }
    /** Adds a reader under its own name, by default last; `before` names a reader it must precede. */
    add(reader, options = {}) {
        return this.register(reader.name, reader, options);
    }
    register(name, reader, options = {}) {
        super.register(name, reader, options);
        this.readers = this.values();
        return this;
    }
    /**
     * What the span says about models and tools; undefined when no reader recognises it (the span
     * carries nothing about them). A reader bug on hostile input must not take the whole batch down,
     * so a throw yields bare facts with the span's identity and no calls.
     */
    normalizeSpan(span) {
        for (const r of this.readers) {
            if (!r.matches(span))
                continue;
            let f;
            try {
                f = r.read(span);
            }
            catch {
                f = baseFacts(span, r.name, 'other');
            }
            // Set here, for every reader alike: where a call came from, for the coverage report.
            f.scope = span.scope;
            f.scopeVersion = span.scopeVersion;
            if (f.proposals.length > 0)
                setFinishReasons(f, span);
            return f;
        }
        return undefined;
    }
    normalizeSpans(spans) {
        const out = [];
        for (const s of spans) {
            const f = this.normalizeSpan(s);
            if (f)
                out.push(f);
        }
        return out;
    }
}
//# sourceMappingURL=dialect.js.map