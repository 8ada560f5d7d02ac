/** The delivery policy pieces every sender shares: Retry-After, backoff, the HTTP classifier, in-process retries. */
import { describe, expect, it } from 'vitest';
import { backoffDelay, retryDelay } from '../../src/delivery/backoff.js';
import { classifyStatus } from '../../src/delivery/http-status.js';
import { withRetries } from '../../src/delivery/retry.js';
import { parseRetryAfter } from '../../src/delivery/retry-after.js';

const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);

describe('parseRetryAfter', () => {
  it.each([
    ['seconds', { 'retry-after': '2' }, 2000],
    ['decimal seconds', { 'retry-after': '1.5' }, 1500],
    ['an HTTP date', { 'retry-after': new Date(NOW + 30_000).toUTCString() }, 30_000],
    ['a date in the past', { 'retry-after': new Date(NOW - 30_000).toUTCString() }, 0],
    ['retry-after-ms first', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    ['node:http arrays', { 'retry-after': ['3'] }, 3000],
    ['absent', {}, undefined],
    ['unreadable', { 'retry-after': 'soon' }, undefined],
    ['negative', { 'retry-after': '-5' }, undefined],
  ])('%s', (_name, headers, want) => {
    expect(parseRetryAfter(headers, NOW)).toBe(want);
  });

  it('reads fetch Headers too', () => {
    expect(parseRetryAfter(new Headers({ 'Retry-After': '4' }), NOW)).toBe(4000);
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('backoff', () => {
  it('doubles from the base up to the cap; jitter takes up to its share off', () => {
    const p = { baseMs: 1000, maxMs: 60_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(p, n))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000,
    ]);
    const j = { baseMs: 1000, maxMs: 30_000, jitter: 0.25 };
    expect(backoffDelay(j, 2, () => 0)).toBe(1500);
    expect(backoffDelay(j, 2, () => 1)).toBe(2000);
    expect(retryDelay(p, 3, 500)).toBe(500); // the server's word wins
    expect(retryDelay(p, 3, undefined)).toBe(4000);
  });
});

describe('classifyStatus', () => {
  it.each([
    [200, 'ok'],
    [204, 'ok'],
    [301, 'permanent'],
    [400, 'permanent'],
    [401, 'permanent'],
    [404, 'permanent'],
    [409, 'permanent'],
    [408, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
  ])('%i → %s', (status, kind) => {
    expect(classifyStatus(status).kind).toBe(kind);
  });

  it('a 429 or a Retry-After holds the destination; redirects are named; extra transient statuses', () => {
    expect(classifyStatus(429, { headers: { 'retry-after': '3' }, nowMs: NOW })).toEqual({
      kind: 'retry',
      retryAfterMs: 3000,
      rateLimited: true,
    });
    expect(classifyStatus(500, { nowMs: NOW })).toEqual({ kind: 'retry', rateLimited: false });
    expect(classifyStatus(503, { headers: { 'retry-after': '1' }, nowMs: NOW })).toEqual({
      kind: 'retry',
      retryAfterMs: 1000,
      rateLimited: true,
    });
    expect(classifyStatus(302)).toEqual({ kind: 'permanent', redirect: true });
    expect(classifyStatus(409, { alsoRetry: [409] }).kind).toBe('retry');
  });
});

describe('withRetries', () => {
  const transient = (e: { status: number; after?: number }) => ({
    retry: e.status >= 500 || e.status === 429,
    ...(e.after !== undefined ? { retryAfterMs: e.after } : {}),
  });

  it('waits Retry-After as sent, else backs off, until it succeeds or the attempts run out', async () => {
    const waits: number[] = [];
    const failures = [{ status: 429, after: 2000 }, { status: 500 }, { status: 503 }];
    const v = await withRetries(
      async () => {
        const f = failures.shift();
        if (f) throw f;
        return 'ok';
      },
      { attempts: 5, backoff: { baseMs: 1000, maxMs: 60_000 } },
      { error: (e) => e as { status: number; after?: number }, transient, sleep: async (ms) => void waits.push(ms) },
    );
    expect(v).toBe('ok');
    expect(waits).toEqual([2000, 2000, 4000]);
  });

  it('gives up on a permanent failure, after the last attempt, or when Retry-After is beyond the limit', async () => {
    const deps = { error: (e: unknown) => e as { status: number; after?: number }, transient, sleep: async () => {} };
    let calls = 0;
    const failing = (e: { status: number; after?: number }) => async () => {
      calls++;
      throw e;
    };
    await expect(
      withRetries(failing({ status: 400 }), { attempts: 5, backoff: { baseMs: 1, maxMs: 1 } }, deps),
    ).rejects.toEqual({ status: 400 });
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      withRetries(failing({ status: 500 }), { attempts: 3, backoff: { baseMs: 1, maxMs: 1 } }, deps),
    ).rejects.toEqual({ status: 500 });
    expect(calls).toBe(3);
    calls = 0;
    const long = { status: 429, after: 120_000 };
    await expect(
      withRetries(failing(long), { attempts: 3, backoff: { baseMs: 1, maxMs: 1 }, maxRetryAfterMs: 60_000 }, deps),
    ).rejects.toEqual(long);
    expect(calls).toBe(1);
  });
});
