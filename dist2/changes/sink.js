import { observeBatch } from './observe.js';
import { changesExtension } from './store.js';
/** What config.changes defaults to (src/changes/config.ts). */
export const DEFAULT_OBSERVE_LIMITS = { maxName: 200, maxToolsPerRequest: 256 };
export function changesSink(dialect, limits = DEFAULT_OBSERVE_LIMITS) {
    return {
        collect: ({ facts, calls }) => {
            const ext = changesExtension(dialect, observeBatch(facts, calls, limits));
            return ext ? [ext] : [];
        },
    };
}
//# sourceMappingURL=sink.js.map