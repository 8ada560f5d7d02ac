import { isoTime } from '../util/iso-time.js';
import { storeFilter } from '../util/service-view.js';
export async function failuresPage(r, q) {
    const items = await r.store.failures({ ...q, ...storeFilter(r.view) });
    const last = items.at(-1);
    return {
        items: items.map((f) => ({ ...f, time: isoTime(f.timeMs) })),
        nextCursor: items.length === q.limit && last ? String(last.id) : null,
    };
}
//# sourceMappingURL=failures.js.map