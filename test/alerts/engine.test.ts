/**
 * The state machine, table-driven: each case is a sequence of (time, condition) evaluations and
 * the messages expected after each, following Prometheus' alerting rules (for, keep_firing_for)
 * and Alertmanager's repeat_interval.
 */
import { describe, expect, it } from 'vitest';
import { step, type AlertInstance, type Timing } from '../../src/alerts/engine.js';
import type { Observation } from '../../src/alerts/rules.js';

const S = 1000;
/** true / false: the condition; null: no data; 'kept': cannot start an alert, keeps one that has started. */
type Cond = boolean | null | 'kept';
const obs = (cond: Cond, value = cond === true ? 0.5 : 0): Observation | null =>
  cond === null
    ? null
    : {
        labels: { service: 'a' },
        active: cond === true,
        ...(cond === 'kept' ? { keep: true } : {}),
        value,
        threshold: 0.1,
        summary: `v=${value}`,
        details: {},
      };

interface Case {
  name: string;
  timing: Partial<Timing>;
  /** [seconds, condition (null = no data), expected message, expected state after] */
  steps: [number, Cond, 'firing' | 'resolved' | 'repeat' | null, AlertInstance['state'] | 'inactive'][];
}

const cases: Case[] = [
  {
    name: 'for = 0 fires at once; resolves once',
    timing: {},
    steps: [
      [0, true, 'firing', 'firing'],
      [30, true, null, 'firing'],
      [60, false, 'resolved', 'resolved'],
      [90, false, null, 'resolved'],
      [120, null, null, 'resolved'],
    ],
  },
  {
    name: 'pending for `for`, then firing',
    timing: { forMs: 60 * S },
    steps: [
      [0, true, null, 'pending'],
      [30, true, null, 'pending'],
      [59, true, null, 'pending'],
      [60, true, 'firing', 'firing'],
      [90, true, null, 'firing'],
    ],
  },
  {
    name: 'flapping inside `for` sends nothing',
    timing: { forMs: 60 * S },
    steps: [
      [0, true, null, 'pending'],
      [30, false, null, 'inactive'],
      [40, true, null, 'pending'],
      [70, false, null, 'inactive'],
      [80, true, null, 'pending'],
      [110, null, null, 'inactive'],
      [120, true, null, 'pending'],
      [180, true, 'firing', 'firing'],
    ],
  },
  {
    name: 'repeat_interval: firing again while it lasts',
    timing: { repeatIntervalMs: 100 * S },
    steps: [
      [0, true, 'firing', 'firing'],
      [60, true, null, 'firing'],
      [100, true, 'repeat', 'firing'],
      [150, true, null, 'firing'],
      [200, true, 'repeat', 'firing'],
      [230, false, 'resolved', 'resolved'],
    ],
  },
  {
    name: 'keep_firing_for holds a firing alert through a short dip',
    timing: { keepFiringForMs: 60 * S },
    steps: [
      [0, true, 'firing', 'firing'],
      [30, false, null, 'firing'],
      [59, false, null, 'firing'],
      [70, true, null, 'firing'],
      [100, false, null, 'firing'],
      [130, false, 'resolved', 'resolved'],
    ],
  },
  {
    name: 'resolved then active again starts over at pending and fires anew',
    timing: { forMs: 30 * S },
    steps: [
      [0, true, null, 'pending'],
      [30, true, 'firing', 'firing'],
      [60, false, 'resolved', 'resolved'],
      [90, true, null, 'pending'],
      [120, true, 'firing', 'firing'],
    ],
  },
  {
    name: 'no data while firing resolves (as an absent series does)',
    timing: {},
    steps: [
      [0, true, 'firing', 'firing'],
      [30, null, 'resolved', 'resolved'],
    ],
  },
  {
    name: 'keep: lasts a started alert, never starts one (problem alerts: started by the transition)',
    timing: {},
    steps: [
      [0, 'kept', null, 'inactive'],
      [30, true, 'firing', 'firing'],
      [60, 'kept', null, 'firing'],
      [3600, 'kept', null, 'firing'],
      [3630, false, 'resolved', 'resolved'],
      [3660, 'kept', null, 'resolved'],
      [3690, true, 'firing', 'firing'],
    ],
  },
  {
    name: 'keep holds a pending alert through `for`',
    timing: { forMs: 60 * S },
    steps: [
      [0, true, null, 'pending'],
      [30, 'kept', null, 'pending'],
      [60, 'kept', 'firing', 'firing'],
      [90, null, 'resolved', 'resolved'],
    ],
  },
];

describe('alert state machine', () => {
  it.each(cases)('$name', ({ timing, steps }) => {
    const t: Timing = { forMs: 0, keepFiringForMs: 0, repeatIntervalMs: 4 * 3600 * S, ...timing };
    let state: AlertInstance | null = null;
    const sent: string[] = [];
    steps.forEach(([sec, cond, message, after], i) => {
      const r = step(state, obs(cond), t, sec * S, { rule: 'r', groupKey: 'g' });
      const got = r.send === null ? null : r.repeat ? 'repeat' : r.send;
      expect([i, sec, got]).toEqual([i, sec, message]);
      expect([i, sec, r.next?.state ?? 'inactive']).toEqual([i, sec, after]);
      if (got) sent.push(got);
      state = r.next;
    });
    // Never two resolved messages in a row, never a resolved without a firing before it.
    let open = false;
    for (const m of sent) {
      if (m === 'resolved') expect(open).toBe(true);
      open = m !== 'resolved';
    }
  });

  it('keeps the times Prometheus reports: activeSince, firingSince, resolvedAt', () => {
    const t: Timing = { forMs: 60 * S, keepFiringForMs: 0, repeatIntervalMs: 3600 * S };
    const id = { rule: 'r', groupKey: 'g' };
    const a = step(null, obs(true, 0.2), t, 10 * S, id).next!;
    const b = step(a, obs(true, 0.3), t, 70 * S, id).next!;
    const c = step(b, obs(false, 0.05), t, 100 * S, id).next!;
    expect([a.activeSince, b.activeSince, b.firingSince, c.resolvedAt]).toEqual([10 * S, 10 * S, 70 * S, 100 * S]);
    expect(b.value).toBe(0.3);
    expect(c.value).toBe(0.05); // the resolved message shows the value that resolved it
    expect(c.firingSince).toBe(70 * S);
  });
});
