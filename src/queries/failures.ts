/** Recent failed calls with their (redacted) arguments and validation errors, newest first, a page at a time. */
import type { FailureQuery, StoredFailure } from '../store/store.js';
import type { Reader } from './reader.js';
import { storeFilter } from './view.js';

export interface FailuresPage {
  items: (StoredFailure & { time: string })[];
  /** The id to pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

export async function failuresPage(r: Reader, q: Omit<FailureQuery, 'services'>): Promise<FailuresPage> {
  const items = await r.store.failures({ ...q, ...storeFilter(r.view) });
  const last = items.at(-1);
  return {
    items: items.map((f) => ({ ...f, time: new Date(f.timeMs).toISOString() })),
    nextCursor: items.length === q.limit && last ? String(last.id) : null,
  };
}
