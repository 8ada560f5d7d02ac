/**
 * A small component lifecycle, so start-up and shutdown are one list instead of hand-rolled
 * rollback: each part of the service is a Component that schedules its own jobs when started and
 * stops when asked. Stopping runs in three steps — the scheduler takes no new runs; every component
 * interrupts what it has in flight (requests, waits) so the runs it belongs to can end; once every
 * run has ended, each component stops for good, the last started first (so the store, started
 * first, closes last). A failed start stops whatever had started, the same way.
 */
import type { Scheduler } from './scheduler.js';

export interface Component {
  readonly name: string;
  /** Starts what it runs and schedules its own jobs on the scheduler. */
  start?(scheduler: Scheduler): void | Promise<void>;
  /** Cuts work in flight short, before the scheduler's runs are waited for (must not throw). */
  interrupt?(): void;
  /** Stops it for good, once no run of any job is going. */
  stop?(): void | Promise<void>;
}

export class Lifecycle {
  private readonly started: Component[] = [];

  constructor(private readonly scheduler: Scheduler) {}

  /** Starts the component; it is stopped with the others only once its start succeeded. */
  async start<C extends Component>(component: C): Promise<C> {
    await component.start?.(this.scheduler);
    this.started.push(component);
    return component;
  }

  /** Stops every started component (each once): scheduler, interrupts, the runs awaited, then stops in reverse. */
  async stop(): Promise<void> {
    const started = this.started.splice(0).reverse();
    this.scheduler.stop();
    for (const c of started) c.interrupt?.();
    await this.scheduler.settled();
    for (const c of started) await c.stop?.();
  }
}
