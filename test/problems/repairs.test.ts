/**
 * The repair-turn rules (src/efficiency/repairs.ts) as a table: which event ends a repair, retries
 * within one, which steps and how much time it is charged, and a failure nothing repaired.
 */
import { describe, expect, it } from 'vitest';
import { repairsOf, type RepairEvent, type StepCost } from '../../src/efficiency/repairs.js';

const ev = (
  kind: 'call' | 'exec',
  failed: boolean,
  timeMs: number,
  tool = 'refund',
  problemId?: string,
): RepairEvent => ({
  kind,
  failed,
  timeMs,
  tool,
  service: 'shop',
  model: 'm',
  problemId: failed ? (problemId ?? `${kind}-${tool}`) : undefined,
});
const steps: StepCost[] = [0, 200, 400, 600].map((startMs, i) => ({
  startMs,
  inputTokens: 100 * (i + 1),
  outputTokens: 10 * (i + 1),
}));

describe('repairsOf', () => {
  it.each<[string, RepairEvent[], Partial<ReturnType<typeof repairsOf>[number]>[]]>([
    [
      'a failed call repaired by the next valid call of the same tool: the steps between',
      [ev('call', true, 100), ev('call', false, 500)],
      [
        {
          problemId: 'call-refund',
          repaired: true,
          retries: 0,
          steps: 2,
          inputTokens: 500,
          outputTokens: 50,
          durationMs: 400,
        },
      ],
    ],
    [
      'a valid call of another tool does not repair it; the trajectory end does (not repaired)',
      [ev('call', true, 100), ev('call', false, 300, 'lookup')],
      [{ repaired: false, steps: 3, inputTokens: 900, durationMs: 700 }],
    ],
    [
      'an invented name is repaired by a valid call of any tool',
      [ev('call', true, 100, '_unknown'), ev('call', false, 300, 'lookup')],
      [{ problemId: 'call-_unknown', repaired: true, steps: 1, inputTokens: 200, durationMs: 200 }],
    ],
    [
      'failures while repairing are retries of one repair, under the first problem',
      [ev('call', true, 100, 'refund', 'p1'), ev('call', true, 300, 'refund', 'p2'), ev('call', false, 700)],
      [{ problemId: 'p1', retries: 1, repaired: true, steps: 3, durationMs: 600 }],
    ],
    [
      'a failed execution is repaired by a succeeding execution, not by a valid call',
      [ev('exec', true, 100), ev('call', false, 300), ev('exec', false, 500)],
      [{ problemId: 'exec-refund', repaired: true, steps: 2, durationMs: 400 }],
    ],
    [
      'events arrive out of order: sorted by time first',
      [ev('call', false, 500), ev('call', true, 100)],
      [{ repaired: true, steps: 2, durationMs: 400 }],
    ],
    [
      'a valid call before the failure repairs nothing',
      [ev('call', false, 50), ev('call', true, 100)],
      [{ repaired: false, steps: 3 }],
    ],
    ['no failure with a problem: no repair', [ev('call', false, 100)], []],
  ])('%s', (_, events, expected) => {
    const got = repairsOf(events, steps, 800);
    expect(got).toHaveLength(expected.length);
    for (let i = 0; i < expected.length; i++) expect(got[i]).toMatchObject(expected[i]!);
  });
});
