/**
 * The judge client loads the `openai` SDK with its first request, not with its module (an instance
 * whose judge is off never loads it: test/architecture/startup-imports.test.ts). An SDK that cannot
 * load fails that request as a rejected transport error naming why — the trajectory stays pending —
 * rather than failing the process at start.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

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
});
