/**
 * new_problem and regressed_problem across two real toolwatch processes on one PostgreSQL, both
 * evaluating every 200 ms, and across kill -9: the agent's failing calls go to either replica, a
 * problem is resolved through the API of one, both replicas are killed with SIGKILL while the
 * regression's message waits in the outbox (Slack answered 503 to its first attempt), and new
 * processes take over. The Slack stand-in must have posted exactly one message per transition.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeSlack, type FakeSlack, type Received } from '../fakes/slack.js';
import { freePort } from '../global-setup.js';
import { buildMain, startMain, type BuiltMain, type MainProcess } from '../helpers/main-process.js';
import { otelClient } from '../helpers/otel.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';
import { agentCalls, sleep, waitFor } from './helpers.js';

const header = (r: Received) => (r.body.blocks[0]?.text as { text: string } | undefined)?.text ?? '';
/** What Slack posted (answered 200), by header. */
const posted = (slack: FakeSlack) => slack.received.filter((r) => r.answered === 200).map(header);

describe.skipIf(pgServer().skip)('problem alerts: two replicas on one PostgreSQL, and kill -9', () => {
  let built: BuiltMain | undefined;
  let slack: FakeSlack | undefined;
  let dir = '';
  let db = '';
  const procs: MainProcess[] = [];

  beforeAll(async () => {
    built = await buildMain();
    slack = await fakeSlack();
    db = await freshDatabase();
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-problem-replicas-'));
  }, 60_000);
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await slack?.close();
    built?.remove();
    if (db) await dropDatabase(db);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function replica(port: number): Promise<{ proc: MainProcess; url: string }> {
    const proc = startMain(built!.file, {
      cwd: dir,
      args: ['--config', path.join(dir, 'toolwatch.yaml')],
      env: { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    });
    procs.push(proc);
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/readyz`)).ok) return { proc, url };
      } catch {
        // not listening yet
      }
      if (proc.child.exitCode !== null || i > 200) throw new Error(`toolwatch did not start:\n${proc.output()}`);
      await sleep(100);
    }
  }

  async function send(url: string, mismatch: number): Promise<void> {
    const client = otelClient(url, { service: 'weather-bot' });
    await agentCalls(client, { mismatch });
    await client.shutdown();
  }

  it('exactly one Slack message per transition', async () => {
    writeFileSync(
      path.join(dir, 'toolwatch.yaml'),
      [
        `database_url: ${JSON.stringify(db)}`,
        'alerts:',
        '  interval: 200ms',
        '  public_url: https://toolwatch.example.com',
        '  rules:',
        '    - { name: new-problems, kind: new_problem, min_occurrences: 3 }',
        '    - { name: regressions, kind: regressed_problem }',
        '  notifiers:',
        `    - { name: oncall, kind: slack, url: "${slack!.url}/services/T0/B0/secret", allow_any_url: true }`,
        '  delivery: { poll: 50ms, min_interval: 100ms, min_backoff: 300ms, max_backoff: 1s }',
        '',
      ].join('\n'),
    );
    const ports = [await freePort(), await freePort()];
    let [a, b] = [await replica(ports[0]!), await replica(ports[1]!)];

    // Two calls through each replica: a new problem once it has 3 occurrences, announced once.
    await send(a.url, 2);
    await sleep(600); // both replicas evaluate 2 calls: under min_occurrences
    expect(posted(slack!)).toEqual([]);
    await send(b.url, 2);
    await waitFor('the new problem in Slack', () => posted(slack!).length >= 1);
    await sleep(2_000); // ten more rounds on each replica
    expect(posted(slack!)).toEqual([':warning: NEW PROBLEM']);
    expect(slack!.received[0]!.body.text).toMatch(
      /^New problem in `weather-bot`: `get_weather`: `location` has the wrong type — 4 calls in 1 min, `gpt-4o` only, first seen \d\d:\d\d UTC$/,
    );

    // Resolved by hand through one replica: the alert resolves, once.
    const list = (await (await fetch(`${b.url}/api/problems`)).json()) as { problems: { id: string }[] };
    expect(list.problems).toHaveLength(1);
    const id = list.problems[0]!.id;
    const resolved = await fetch(`${a.url}/api/problems/${id}/resolve`, { method: 'POST' });
    expect(resolved.status).toBe(200);
    await waitFor('the resolved message', () => posted(slack!).length >= 2);
    // Killed only once the sender has recorded the delivery: a process killed between Slack's answer
    // and that record sends the message again after a restart (the outbox's documented duplicate).
    for (let i = 0; ; i++) {
      const { outbox } = (await (await fetch(`${a.url}/api/alerts`)).json()) as { outbox: { pending: number } };
      if (outbox.pending === 0) break;
      if (i > 100) throw new Error('the outbox did not drain');
      await sleep(100);
    }

    // kill -9 one replica; the regression goes through the other, whose first Slack attempt gets a
    // 503; the survivor is killed -9 right after that answer. Nobody is left running.
    b.proc.child.kill('SIGKILL');
    await b.proc.exited;
    // Retry-After holds the notifier 2 s: the kill lands before any second attempt, however slow this machine.
    slack!.script({ status: 503, body: 'service unavailable', headers: { 'retry-after': '2' } });
    await send(a.url, 1);
    await waitFor('the regression attempt answered 503', () => slack!.received.some((r) => r.answered === 503), 10_000);
    a.proc.child.kill('SIGKILL');
    await a.proc.exited;
    expect(posted(slack!)).toHaveLength(2);

    // New processes on the same database finish the job: the pending message is sent once.
    [a, b] = [await replica(ports[0]!), await replica(ports[1]!)];
    await waitFor('the regression in Slack', () => posted(slack!).length >= 3, 15_000);
    await sleep(2_000);
    expect(posted(slack!)).toEqual([
      ':warning: NEW PROBLEM',
      ':white_check_mark: RESOLVED NEW PROBLEM',
      ':repeat: REGRESSED PROBLEM',
    ]);
    expect(slack!.received.filter((r) => r.answered === 503).map(header)).toEqual([':repeat: REGRESSED PROBLEM']);
    expect(slack!.received.at(-1)!.body.blocks.at(-1)).toEqual({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `<https://toolwatch.example.com/problems/${id}|Problem ${id}>` }],
    });
    for (const p of [a, b]) await p.proc.stop();
  }, 120_000);
});
