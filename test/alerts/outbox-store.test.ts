/**
 * The alert store and the outbox on SQLite and PostgreSQL alike: states and messages commit
 * together, FIFO per notifier, an attempt is recorded before the send (so a process that dies
 * mid-send resends once after a restart), Retry-After holds the whole notifier, permanent
 * failures stop, and URLs that point inward are refused at connect time after DNS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AlertStore } from '../../src/alerts/alert-store.js';
import type { AlertMessage } from '../../src/alerts/message.js';
import { postJson, BlockedAddressError } from '../../src/alerts/notifiers/http-post.js';
import type { Notifier, SendResult } from '../../src/alerts/notifiers/registry.js';
import { isPrivateAddress } from '../../src/alerts/notifiers/url-guard.js';
import { alertmanagerPayload } from '../../src/alerts/notifiers/webhook.js';
import { OutboxWorker } from '../../src/alerts/outbox.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';
import { fakeSlack } from '../fakes/slack.js';

const msg = (status: 'firing' | 'resolved', rule = 'r'): AlertMessage => ({
  status,
  repeat: false,
  rule,
  kind: 'error_rate',
  severity: 'warning',
  labels: { service: 'a' },
  groupKey: '[["service","a"]]',
  fingerprint: 'f00d',
  value: 0.5,
  threshold: 0.1,
  summary: 's',
  details: { window: '5m' },
  startsAt: 1000,
  endsAt: status === 'resolved' ? 2000 : null,
  link: '/api/failures?service=a',
});
const delivery = {
  timeoutMs: 1000,
  minIntervalMs: 1000,
  minBackoffMs: 500,
  maxBackoffMs: 4000,
  giveUpAfterMs: 60_000,
  pollMs: 50,
};

/** A notifier that answers from a script and records what it was asked to send. */
function scripted(results: SendResult[]): Notifier & { sent: AlertMessage[] } {
  const sent: AlertMessage[] = [];
  return {
    name: 'n',
    kind: 'test',
    target: 'test',
    sent,
    send: async (m) => (sent.push(m), results.shift() ?? { kind: 'ok' }),
  };
}

interface Target {
  open(): Promise<Store>;
  dispose(): Promise<void>;
}

const targets: [string, boolean, () => Promise<Target>][] = [
  [
    'sqlite',
    false,
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-alertstore-'));
      return {
        open: async () => new SqliteStore({ path: path.join(dir, 'db'), synchronous: 'NORMAL' }),
        dispose: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  ],
  [
    'postgres',
    pgServer().skip,
    async () => {
      const url = await freshDatabase();
      return { open: () => PostgresStore.open(url), dispose: () => dropDatabase(url) };
    },
  ],
];

describe.each(targets)('alert store on %s', (_name, skip, makeTarget) => {
  it.skipIf(skip)(
    'commits states with their messages; FIFO per notifier; attempt recorded before send; resend after a crash',
    async () => {
      const target = await makeTarget();
      let store = await target.open();
      try {
        let as = new AlertStore(store.sql);
        const instance = {
          rule: 'r',
          groupKey: 'g',
          labels: { service: 'a' },
          state: 'firing' as const,
          activeSince: 1,
          firingSince: 1,
          lastActiveAt: 1,
          lastNotifiedAt: 1,
          resolvedAt: null,
          evaluatedAt: 1,
          value: 0.5,
          threshold: 0.1,
          summary: 's',
          details: {},
        };
        await as.commit({
          upsert: [instance],
          remove: [],
          enqueue: [
            { notifier: 'n', message: msg('firing') },
            { notifier: 'other', message: msg('firing') },
          ],
          nowMs: 1000,
        });
        await as.commit({
          upsert: [{ ...instance, state: 'resolved', resolvedAt: 2 }],
          remove: [],
          enqueue: [{ notifier: 'n', message: msg('resolved') }],
          nowMs: 2000,
        });
        expect((await as.states()).map((s) => s.state)).toEqual(['resolved']);

        // The first attempt is recorded, then the process "dies" mid-send (no markSent/markRetry).
        const head = (await as.head('n'))!;
        expect(head.message.status).toBe('firing');
        await as.markAttempt(head.id, 'n', 5000, 5500, 6000);
        await store.close();

        store = await target.open();
        as = new AlertStore(store.sql);
        let clock = 5100;
        const notifier = scripted([]);
        const worker = new OutboxWorker({
          store: as,
          notifiers: [notifier],
          delivery,
          now: () => clock,
          log: pino({ level: 'silent' }),
        });
        await worker.tick();
        expect(notifier.sent).toEqual([]); // its retry time (5500) and the notifier's slot (6000) not reached
        clock = 6000;
        await worker.tick();
        expect(notifier.sent.map((m) => m.status)).toEqual(['firing']); // resent once after the "restart"
        clock = 6500;
        await worker.tick();
        expect(notifier.sent).toHaveLength(1); // 1 per second per notifier
        clock = 7000;
        await worker.tick();
        expect(notifier.sent.map((m) => m.status)).toEqual(['firing', 'resolved']);
        const summary = await as.outboxSummary(10);
        expect(summary).toMatchObject({ pending: 1, sent: 2, failed: 0 }); // 'other' is still waiting
        expect((await as.head('other'))!.attempts).toBe(0);
      } finally {
        await store.close();
        await target.dispose();
      }
    },
  );

  it.skipIf(skip)(
    'backoff and Retry-After hold the notifier; permanent failures are recorded and skipped; old rows pruned',
    async () => {
      const target = await makeTarget();
      const store = await target.open();
      try {
        const as = new AlertStore(store.sql);
        await as.commit({
          upsert: [],
          remove: [],
          enqueue: ['firing', 'resolved', 'firing'].map((s) => ({ notifier: 'n', message: msg(s as 'firing') })),
          nowMs: 0,
        });
        let clock = 0;
        const results: SendResult[] = [
          { kind: 'retry', error: '500 boom' },
          { kind: 'retry', retryAfterMs: 3000, rateLimited: true, error: '429 rate_limited' },
          { kind: 'permanent', error: '404 no_service' },
          { kind: 'ok' },
        ];
        const notifier = scripted(results);
        const worker = new OutboxWorker({
          store: as,
          notifiers: [notifier],
          delivery,
          now: () => clock,
          log: pino({ level: 'silent' }),
        });
        const attemptsAt: number[] = [];
        for (clock = 0; clock <= 10_000; clock += 100) {
          const before = notifier.sent.length;
          await worker.tick();
          if (notifier.sent.length > before) attemptsAt.push(clock);
        }
        // 0: 500 → backoff max(500 ms, 1 s slot) → 1000: 429 with Retry-After 3 s → 4000: 404 (permanent,
        // next message) → 5000: sent → 6000: the third message.
        expect(attemptsAt).toEqual([0, 1000, 4000, 5000, 6000]);
        expect(notifier.sent.map((m) => m.status)).toEqual(['firing', 'firing', 'firing', 'resolved', 'firing']);
        const summary = await as.outboxSummary(10);
        expect(summary).toMatchObject({ pending: 0, sent: 2, failed: 1 });
        expect(summary.recentFailures[0]).toMatchObject({ attempts: 3, lastError: '404 no_service', status: 'failed' });
        expect(await as.prune(3000)).toBe(0); // done at 4000+
        expect(await as.prune(20_000)).toBe(3);
      } finally {
        await store.close();
        await target.dispose();
      }
    },
  );
});

describe('webhook safety', () => {
  it('classifies inward addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ])
      expect([a, isPrivateAddress(a)]).toEqual([a, true]);
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect([a, isPrivateAddress(a)]).toEqual([a, false]);
  });

  it('refuses a host whose DNS answer is loopback (checked at connect time), and follows no redirect', async () => {
    const server = await fakeSlack();
    try {
      const port = new URL(server.url).port;
      // "localhost" passes a naive string check on the URL; the resolved address does not.
      await expect(
        postJson(`http://localhost:${port}/x`, '{}', { timeoutMs: 1000, allowPrivateAddresses: false }),
      ).rejects.toBeInstanceOf(BlockedAddressError);
      await expect(
        postJson(`http://127.0.0.1:${port}/x`, '{}', { timeoutMs: 1000, allowPrivateAddresses: false }),
      ).rejects.toBeInstanceOf(BlockedAddressError);
      expect(server.received).toHaveLength(0);
      server.script({ status: 302, headers: { location: `${server.url}/elsewhere` } });
      const res = await postJson(`http://localhost:${port}/x`, '{}', { timeoutMs: 1000, allowPrivateAddresses: true });
      expect(res.status).toBe(302);
      expect(server.received.map((r) => r.path)).toEqual(['/x']); // the redirect target was never asked
    } finally {
      await server.close();
    }
  });

  it("the webhook payload is Alertmanager's (version 4)", () => {
    const p = alertmanagerPayload(msg('resolved'), 'am') as Record<string, unknown> & {
      alerts: Record<string, unknown>[];
    };
    expect(p).toMatchObject({
      version: '4',
      status: 'resolved',
      receiver: 'am',
      groupLabels: { alertname: 'r' },
      commonLabels: { alertname: 'r', severity: 'warning', service: 'a' },
      truncatedAlerts: 0,
    });
    expect(p.alerts).toEqual([
      {
        status: 'resolved',
        labels: { alertname: 'r', severity: 'warning', service: 'a' },
        annotations: { summary: 's', value: '0.5', threshold: '0.1', kind: 'error_rate', window: '5m' },
        startsAt: new Date(1000).toISOString(),
        endsAt: new Date(2000).toISOString(),
        generatorURL: '/api/failures?service=a',
        fingerprint: 'f00d',
      },
    ]);
  });
});
