/**
 * The judge client loads the `openai` SDK with its first request, not with its module (an instance
 * whose judge is off never loads it: test/architecture/startup-imports.test.ts). An SDK that cannot
 * load fails that request as a rejected transport error naming why — the trajectory stays pending —
 * rather than failing the process at start. An instance whose judge is on warms the client at start
 * (`warm`, awaited by the judge component's start, before the instance listens): the SDK loads then,
 * nothing is sent, and a warm-up that cannot load anything leaves the first request to say why.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { judgeComponent } from '../../src/judge/component.js';
import type { Judge } from '../../src/judge/service.js';
import type { Scheduler } from '../../src/jobs/scheduler.js';
import { startFakeOpenAI, verdictJson } from '../fakes/openai.js';

afterEach(() => {
  vi.doUnmock('openai');
  vi.resetModules();
});

describe('the judge client and its SDK', () => {
  it('fails a request as rejected, with the reason, when the SDK cannot be loaded', async () => {
    vi.resetModules();
    vi.doMock('openai', () => {
      throw new Error('Cannot find package openai');
    });
    const { JudgeTransportError, OpenAIJudgeClient } = await import('../../src/judge/client.js');
    const client = new OpenAIJudgeClient({
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'judge',
      timeoutMs: 100,
      maxRetries: 2,
      maxRetryWaitMs: 0,
      sleep: async () => {},
    });
    const err = await client.judge([{ role: 'user', content: 'judge this' }]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(JudgeTransportError);
    expect(err).toMatchObject({ kind: 'rejected' });
    // The import's own error follows (here vitest's wrapper of the factory's throw).
    expect((err as Error).message).toMatch(/^judge client unavailable: /);
  });

  it('warm() loads the SDK before the first request and sends nothing; that request then uses it', async () => {
    vi.resetModules();
    let loads = 0;
    vi.doMock('openai', async () => {
      loads++;
      return vi.importActual('openai');
    });
    const { OpenAIJudgeClient } = await import('../../src/judge/client.js');
    const fake = await startFakeOpenAI(() => ({ content: verdictJson() }));
    try {
      const client = new OpenAIJudgeClient({
        baseUrl: fake.baseUrl,
        model: 'judge',
        timeoutMs: 5_000,
        maxRetries: 0,
        maxRetryWaitMs: 0,
      });
      expect(loads).toBe(0);
      await client.warm();
      expect(loads).toBe(1);
      expect(fake.received).toHaveLength(0);
      const answer = await client.judge([{ role: 'user', content: 'judge this' }]);
      expect(answer.verdict?.reached_goal).toBe(true);
      expect(fake.received).toHaveLength(1);
      expect(loads).toBe(1);
    } finally {
      await fake.close();
    }
  });

  it('warm() resolves when the SDK cannot load or the base URL is not one; the first request says why', async () => {
    vi.resetModules();
    vi.doMock('openai', () => {
      throw new Error('Cannot find package openai');
    });
    const { OpenAIJudgeClient } = await import('../../src/judge/client.js');
    const opts = { model: 'judge', timeoutMs: 100, maxRetries: 0, maxRetryWaitMs: 0, sleep: async () => {} };
    const client = new OpenAIJudgeClient({ ...opts, baseUrl: 'http://127.0.0.1:9/v1' });
    await expect(client.warm()).resolves.toBeUndefined();
    await expect(client.judge([{ role: 'user', content: 'x' }])).rejects.toThrow(/^judge client unavailable: /);
    vi.doUnmock('openai');
    vi.resetModules();
    const fresh = await import('../../src/judge/client.js');
    const bad = new fresh.OpenAIJudgeClient({ ...opts, baseUrl: 'not a url' });
    await expect(bad.warm()).resolves.toBeUndefined();
  });

  it("the judge component warms the client before it schedules the judge's jobs", async () => {
    const order: string[] = [];
    const job = {
      warm: async () => {
        await new Promise((r) => setTimeout(r, 5));
        order.push('warm');
      },
      run: async () => undefined,
      complete: async () => undefined,
    };
    const judge = { job, store: { trajectories: { prune: async () => 0 } } } as unknown as Judge;
    const scheduler = {
      every: (name: string) => order.push(`every ${name}`),
      interval: (name: string) => order.push(`interval ${name}`),
    } as unknown as Scheduler;
    const c = judgeComponent(judge, { schedule: '0 * * * *', completeEveryMs: 10_000, retentionMs: 1, now: Date.now });
    await c.start?.(scheduler);
    expect(order).toEqual(['warm', 'every judge', 'interval judge-complete', 'every judge-retention']);
  });
});
