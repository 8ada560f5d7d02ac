import { principalOf } from '../auth/hook.js';
export function readerFor(sources) {
    return (req) => ({ ...sources, view: principalOf(req).view });
}
//# sourceMappingURL=reader-for.js.map