/**
 * The component lifecycle: components stop in reverse start order, every interrupt comes before the
 * scheduler's runs are awaited and every stop after them, a component whose start failed is not
 * stopped (what started before it is), and stopping twice stops nothing twice.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Lifecycle, type Component } from '../../src/jobs/lifecycle.js';
import { Scheduler } from '../../src/jobs/scheduler.js';

function recording(events: string[], name: string, extra: Partial<Component> = {}): Component {
  return {
    name,
    start: () => void events.push(`start ${name}`),
    interrupt: () => void events.push(`interrupt ${name}`),
    stop: () => void events.push(`stop ${name}`),
    ...extra,
  };
}

describe('Lifecycle', () => {
  it('interrupts, waits for the runs going on, then stops the last started first', async () => {
    const events: string[] = [];
    const scheduler = new Scheduler(pino({ level: 'silent' }));
    const lifecycle = new Lifecycle(scheduler);
    let release!: () => void;
    await lifecycle.start(recording(events, 'store'));
    await lifecycle.start(
      recording(events, 'job', {
        start: (s) => {
          events.push('start job');
          void s.runOnce('slow', () => new Promise<void>((r) => (release = r)).then(() => events.push('run ended')));
        },
        interrupt: () => {
          events.push('interrupt job');
          release();
        },
      }),
    );
    await lifecycle.start(recording(events, 'alerts'));
    await lifecycle.stop();
    expect(events).toEqual([
      'start store',
      'start job',
      'start alerts',
      'interrupt alerts',
      'interrupt job',
      'interrupt store',
      'run ended',
      'stop alerts',
      'stop job',
      'stop store',
    ]);
    await lifecycle.stop();
    expect(events).toHaveLength(10);
  });

  it('a failed start: that component is not stopped, the ones before it are', async () => {
    const events: string[] = [];
    const lifecycle = new Lifecycle(new Scheduler(pino({ level: 'silent' })));
    await lifecycle.start(recording(events, 'store'));
    const broken = recording(events, 'broken', {
      start: () => {
        throw new Error('refused');
      },
    });
    await expect(lifecycle.start(broken)).rejects.toThrow('refused');
    await lifecycle.stop();
    expect(events).toEqual(['start store', 'interrupt store', 'stop store']);
  });
});
