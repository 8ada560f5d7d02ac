/** Recent failed calls with their raw arguments and validation errors, newest first, a page at a time. */
import type { FailureQuery, Store, StoredFailure } from '../store/store.js';

export interface FailuresPage {
  items: (StoredFailure & { time: string })[];
  /** The id to pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

export async function failuresPage(store: Store, q: FailureQuery): Promise<FailuresPage> {
  const items = await store.failures(q);
  const last = items.at(-1);
  return {
    items: items.map((f) => ({ ...f, time: new Date(f.timeMs).toISOString() })),
    nextCursor: items.length === q.limit && last ? String(last.id) : null,
  };
}
