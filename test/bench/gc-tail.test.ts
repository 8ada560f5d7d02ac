/**
 * `npm run bench -- --gc-tail` (bench/gc-tail.js): a slow request is put down to a GC pause of at
 * least 5 ms when it ended after the pause began and at most 100 ms after it ended; pauses outside the
 * phase's window are not counted, and the preload's log lines read back as pauses.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain-JavaScript benchmark module without types
import { explainTail, readPauses } from '../../bench/gc-tail.js';

const MC = 4;
const INCREMENTAL = 8;
const SCAVENGE = 1;
const pause = (start: number, ms: number, kind: number) => ({ start, end: start + ms, ms, kind });

describe('explainTail', () => {
  const pauses = [
    pause(1_000, 12, MC),
    pause(2_000, 9, INCREMENTAL),
    pause(3_000, 6, SCAVENGE),
    pause(4_000, 4, MC), // under 5 ms: explains nothing
    pause(9_000, 30, MC), // outside the window
  ];
  const cases: [string, [number, number, number], 'major' | 'scavenge' | 'none'][] = [
    ['in flight through a mark-compact', [990, 1_030, 40], 'major'],
    ['queued behind it, ending 100 ms after it ended', [1_050, 1_112, 62], 'major'],
    ['ending 101 ms after it ended', [1_060, 1_113, 53], 'none'],
    ['ending before the pause began', [950, 999, 49], 'none'],
    ['behind the start of incremental marking', [2_005, 2_040, 35], 'major'],
    ['behind a scavenge', [2_990, 3_020, 30], 'scavenge'],
    ['behind a pause under 5 ms', [3_995, 4_030, 35], 'none'],
  ];
  it.each(cases)('%s', (_name, request, want) => {
    const t = explainTail([request], [0, 8_000], pauses);
    expect([t.byMajorGc, t.byScavenge, t.unexplained]).toEqual(
      want === 'major' ? [1, 0, 0] : want === 'scavenge' ? [0, 1, 0] : [0, 0, 1],
    );
  });
  it('lists the window’s pauses by kind', () => {
    const t = explainTail([], [0, 8_000], pauses);
    expect(t).toMatchObject({ slow: 0, markCompacts: [12, 4], incrementalStarts: [9], scavenges: 1, scavengeMs: 6 });
  });
});

describe('readPauses', () => {
  it('reads what bench/gc-pauses.js writes, and nothing from a missing file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gc-tail-'));
    try {
      const file = path.join(dir, 'gc.log');
      expect(readPauses(file)).toEqual([]);
      writeFileSync(file, '1733490000000.5 12.25 4\n1733490000100.0 0.80 1\n');
      expect(readPauses(file)).toEqual([
        { start: 1733490000000.5, end: 1733490000012.75, ms: 12.25, kind: 4 },
        { start: 1733490000100, end: 1733490000100.8, ms: 0.8, kind: 1 },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
