/** Recent failed calls with their (redacted) arguments and validation errors, newest first, a page at a time. */
import type { FailureQuery, StoredFailure } from '../store/store.js';
import { isoTime } from '../util/iso-time.js';
import type { Reader } from './reader.js';
import { storeFilter } from '../util/service-view.js';

export interface FailuresPage {
  /** `time` is null for a stored time no date can show (a row no writer of ours made). */
  items: (StoredFailure & { time: string | null })[];
  /** The id to pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

export async function failuresPage(r: Reader, q: Omit<FailureQuery, 'services'>): Promise<FailuresPage> {
  const items = await r.store.failures({ ...q, ...storeFilter(r.view) });
  const last = items.at(-1);
  return {
    items: items.map((f) => ({ ...f, time: isoTime(f.timeMs) })),
    nextCursor: items.length === q.limit && last ? String(last.id) : null,
  };
}
