/**
 * `npm run bench -- --gc-tail`: which of a fixed-rate phase's slowest requests toolwatch's garbage
 * collector explains. The load generator lists the requests at or over the phase's p99 with their
 * wall-clock start and end (load.js `tail`); the preload bench/gc-pauses.js logs every GC pause of
 * toolwatch's main thread. A slow request is put down to a pause of at least MIN_PAUSE_MS when it ended
 * after the pause began and at most AFTER_MS after it ended: it waited through the pause or in the
 * queue of batches the pause left behind (at half its max a server drains that queue at the half of
 * its core it has spare, so a 10 ms pause delays the batches of the next 10–20 ms).
 */
import { existsSync, readFileSync } from 'node:fs';

export const MIN_PAUSE_MS = 5;
export const AFTER_MS = 100;
const MINOR = 1;
const MAJOR = 4;
const INCREMENTAL = 8;

/** The pauses bench/gc-pauses.js logged: { start, end, ms, kind }, oldest first. */
export function readPauses(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [start, ms, kind] = l.split(' ').map(Number);
      return { start, end: start + ms, ms, kind };
    });
}

/**
 * `tail`: the phase's slow requests as [startMs, endMs, latencyMs] (wall clock); `window`: [from, to]
 * of the phase's measured window. Returns how many of them a major collection (a mark-compact or the
 * start of incremental marking) or a scavenge explains, and the pauses of the window by kind.
 */
export function explainTail(tail, window, pauses) {
  const [from, to] = window;
  const inWindow = pauses.filter((p) => p.end >= from && p.start <= to);
  const big = inWindow.filter((p) => p.ms >= MIN_PAUSE_MS);
  const explains = (kinds) => (r) =>
    big.some((p) => kinds.includes(p.kind) && p.start <= r[1] && r[1] <= p.end + AFTER_MS);
  const byMajor = tail.filter(explains([MAJOR, INCREMENTAL])).length;
  const byAny = tail.filter(explains([MAJOR, INCREMENTAL, MINOR])).length;
  const of = (kind) => inWindow.filter((p) => p.kind === kind).map((p) => Math.round(p.ms * 10) / 10);
  const minor = of(MINOR);
  return {
    slow: tail.length,
    byMajorGc: byMajor,
    byScavenge: byAny - byMajor,
    unexplained: tail.length - byAny,
    markCompacts: of(MAJOR),
    incrementalStarts: of(INCREMENTAL),
    scavenges: minor.length,
    scavengeMs: Math.round(minor.reduce((a, b) => a + b, 0)),
  };
}

/** One line for the log. */
export function describeTail(name, p99, t) {
  const list = (xs) => (xs.length ? ` (${xs.map((x) => x.toFixed(0)).join(', ')} ms)` : '');
  const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
  return (
    `  ${name}: of the ${t.slow} requests at or over its p99 (${p99} ms), ${t.byMajorGc} waited on a major GC's pause ` +
    `(or its queue, ≤ ${AFTER_MS} ms after), ${t.byScavenge} on a scavenge's, ${t.unexplained} on neither; in the window ` +
    `${n(t.markCompacts.length, 'mark-compact', 'mark-compacts')}${list(t.markCompacts)}, ` +
    `${n(t.incrementalStarts.length, 'start', 'starts')} of incremental marking${list(t.incrementalStarts)}, ` +
    `${n(t.scavenges, 'scavenge', 'scavenges')} (${t.scavengeMs} ms in all)`
  );
}
