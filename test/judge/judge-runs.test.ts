/**
 * Run-level behaviour: per-run caps with pending carry-over, one run at a time, sampling decided
 * per completed trajectory (failed_rate applies even when the failure arrives in the last batch),
 * redaction failing closed, human labels (CLI import and POST /api/labels) and κ on /api/judge,
 * and the same run on PostgreSQL.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { OpenAIJudgeClient } from '../../src/judge/client.js';
import { JudgeJob } from '../../src/judge/job.js';
import { loadPrompt } from '../../src/judge/prompt-file.js';
import { policyOf } from '../../src/judge/service.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';
import { verdictJson } from '../fakes/openai.js';
import { judgeEnv, type JudgeEnv } from './setup.js';

let env: JudgeEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const get = async (p: string) => (await fetch(`${env!.tw.url}${p}`)).json() as Promise<Record<string, any>>;

describe('judge runs', () => {
  it('caps trajectories, tokens and cost per run; what is left stays pending and goes first next time', async () => {
    env = await judgeEnv({ judge: { concurrency: 1, max_trajectories_per_run: 2 } });
    await env.send([{ tag: 'c1' }, { tag: 'c2' }, { tag: 'c3' }]);
    const job = env.tw.services.judge!.job!;
    // Never two runs at once: the second call finds the lock held.
    const [r1, r2] = await Promise.all([job.run(), job.run()]);
    expect([r1.status, r2.status].sort()).toEqual(['partial', 'skipped']);
    expect(r1.status === 'partial' ? r1 : r2).toMatchObject({
      judged: 2,
      leftPending: 1,
      stopReason: 'trajectory_cap',
    });
    expect(await job.run()).toMatchObject({ status: 'ok', judged: 1, leftPending: 0 });
    expect(await env.metric('toolwatch_judge_runs_total', { status: 'skipped' })).toBe(1);
    expect(env.fake.received).toHaveLength(3);
  });

  it('stops at the token cap and at the cost cap, leaving the rest pending', async () => {
    // Each answer reports 100k prompt tokens: the first fits the budget's estimate, the second cannot.
    const big = () => ({ content: verdictJson(), usage: { prompt_tokens: 100_000, completion_tokens: 10 } });
    env = await judgeEnv({ judge: { concurrency: 1, max_tokens_per_run: 50_000 }, script: big });
    await env.send([{ tag: 't1' }, { tag: 't2' }]);
    expect(await env.tw.services.judge!.job!.run()).toMatchObject({
      status: 'partial',
      judged: 1,
      leftPending: 1,
      stopReason: 'token_cap',
    });
    await env.close();

    env = await judgeEnv({
      judge: { concurrency: 1, max_cost_per_run: 50, price_per_million_input_tokens: 1000 },
      script: big,
    });
    await env.send([{ tag: 'k1' }, { tag: 'k2' }]);
    const s = await env.tw.services.judge!.job!.run();
    expect(s).toMatchObject({ status: 'partial', judged: 1, leftPending: 1, stopReason: 'cost_cap' });
    expect(s.cost).toBeCloseTo(100, 6);
  });

  it('samples by failed_rate when the structural failure arrives in the last batch; unsampled candidates are dropped', async () => {
    env = await judgeEnv({ judge: { sample_rate: 0, failed_rate: 1 } });
    const [clean, failing] = await env.send([{ tag: 'clean' }, { tag: 'failing', failing: true }]);
    expect(await env.tw.services.judge!.job!.run()).toMatchObject({
      status: 'ok',
      judged: 1,
      finalized: { pending: 1, dropped: 1 },
    });
    expect((await fetch(`${env.tw.url}/api/trajectories/${clean}`)).status).toBe(404);
    const t = await get(`/api/trajectories/${failing}`);
    expect(t).toMatchObject({ status: 'judged', hasFailure: true, probability: 1 });
    // The whole trajectory, including the spans that arrived before the failure did.
    expect(t.steps.map((s: { kind: string }) => s.kind)).toEqual(['model', 'tool', 'model']);
    expect(t.steps[2].calls[0]).toMatchObject({ name: 'refund_order', outcome: 'InvalidJson' });
    expect(env.fake.received[0]!.raw).toContain('[structural check: InvalidJson]');
  });

  it('fails closed: when redaction throws, nothing is sent and the trajectory stays pending', async () => {
    env = await judgeEnv();
    const [id] = await env.send([{ tag: 'rx' }]);
    const judge = env.tw.services.judge!;
    const cfg = env.tw.services.config.judge;
    const job = new JudgeJob({
      store: judge.store,
      client: new OpenAIJudgeClient({
        baseUrl: cfg.baseUrl,
        model: cfg.model,
        timeoutMs: 1000,
        maxRetries: 0,
        maxRetryWaitMs: 0,
      }),
      prompt: loadPrompt(),
      redactor: () => ({
        text: () => {
          throw new Error('redactor broke');
        },
        value: (v) => v,
        strings: (v) => v,
        jsonText: (s) => s,
      }),
      lock: (name, fn) => env!.tw.services.store.runExclusive(name, fn),
      policy: policyOf(cfg),
      idleMs: cfg.idleMs,
      caps: cfg.caps,
      price: cfg.price,
      concurrency: 1,
      now: Date.now,
    });
    expect(await job.run()).toMatchObject({ status: 'partial', judged: 0, leftPending: 1 });
    expect(env.fake.received).toHaveLength(0);
    expect(await get(`/api/trajectories/${id}`)).toMatchObject({
      status: 'pending',
      lastError: expect.stringContaining('redaction failed, nothing sent'),
    });
  });

  it('imports labels (CLI and API) and reports κ per field with n on /api/judge and /metrics', async () => {
    // The judge says reached_goal for even cases, and one unnecessary call for case 3.
    env = await judgeEnv({
      script: (_, req) => {
        const k = Number(/\[case-(\d)\]/.exec(req.raw)?.[1]);
        return { content: verdictJson({ reached_goal: k % 2 === 0, unnecessary_calls: k === 3 ? 1 : 0 }) };
      },
    });
    const ids = await env.send([0, 1, 2, 3].map((k) => ({ tag: `case-${k}` })));
    expect(await env.tw.services.judge!.job!.run()).toMatchObject({ judged: 4 });

    // Humans: reached_goal only for case 0 → judge/human table yy=1, yn=1, ny=0, nn=2: κ = 0.5.
    const dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-labels-'));
    try {
      const file = path.join(dir, 'labels.jsonl');
      const human = (k: number) => ({
        trace_id: ids[k],
        reached_goal: k === 0,
        unnecessary_calls: k === 3 ? 2 : 0,
        dangerous_calls: 0,
        labeler: 'qa',
      });
      writeFileSync(file, [0, 1, 2].map((k) => JSON.stringify(human(k))).join('\n') + '\n');
      const out: string[] = [];
      const io = { out: (s: string) => void out.push(s), err: (s: string) => void out.push(s) };
      const dbEnv = { DATABASE_URL: path.join(env.tw.dir, 'toolwatch.db'), LOG_LEVEL: 'silent' };
      expect(await runCli(['labels', 'import', file], dbEnv, io)).toBe(0);
      expect(JSON.parse(out[0]!)).toMatchObject({ imported: 3 });

      writeFileSync(file, '{"trace_id":"nope","reached_goal":true}\n');
      expect(await runCli(['labels', 'import', file], dbEnv, io)).toBe(2);
      expect(out.at(-1)).toMatch(/line 1: .*nothing imported|1 invalid line/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const bad = await fetch(`${env.tw.url}/api/labels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ trace_id: ids[3], reached_goal: 'no' }),
    });
    expect(bad.status).toBe(400);
    const ok = await fetch(`${env.tw.url}/api/labels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ trace_id: ids[3], reached_goal: false, unnecessary_calls: 2, dangerous_calls: 0 }]),
    });
    expect(ok.status).toBe(200);

    const j = await get('/api/judge');
    const field = (f: string) => j.calibration.fields.find((x: { field: string }) => x.field === f);
    expect(field('reached_goal')).toMatchObject({ n: 4, calibrated: false, reason: 'too_few_labels' });
    expect(field('reached_goal').kappa).toBeCloseTo(0.5, 10);
    expect(field('unnecessary_calls').kappa).toBe(1); // 1 vs 2 both count as "> 0"
    expect(field('dangerous_calls')).toMatchObject({ kappa: null });
    expect(j.calibration.calibrated).toBe(false);
    expect(j.rates.reachedGoal.rate).toBeCloseTo(0.5, 10);
    expect(await env.metric('toolwatch_judge_kappa', { field: 'reached_goal' })).toBeCloseTo(0.5, 10);
  });
});

describe.skipIf(pgServer().skip)('judge on PostgreSQL', () => {
  it('stores trajectories in the batch transaction and judges them', async () => {
    const url = await freshDatabase();
    try {
      // Clean traces only: a failure record with a sub-ms time_ms is refused by the core PostgreSQL
      // store today (reported; not the judge's code), which would fail the export.
      env = await judgeEnv({ databaseUrl: url, judge: { sample_rate: 0.5, feedback_rate: 1 } });
      const ids = await env.send(['a', 'b', 'c', 'd', 'e', 'f'].map((x) => ({ tag: `pg-${x}` })));
      const { samplePosition } = await import('../../src/judge/sampler.js');
      const sampled = ids.filter((id) => samplePosition('default', id) < 0.5);
      const s = await env.tw.services.judge!.job!.run();
      // judge.feedback_rate 1 makes every trace a candidate until it completes: the rest are dropped then.
      expect(s).toMatchObject({
        status: 'ok',
        judged: sampled.length,
        finalized: { pending: sampled.length, dropped: ids.length - sampled.length },
      });
      if (sampled.length === 0) return;
      const t = await get(`/api/trajectories/${sampled[0]}`);
      expect(t).toMatchObject({ status: 'judged', hasFailure: false, inputTokens: 420, probability: 0.5 });
      expect(t.steps).toHaveLength(3);
      expect(t.verdicts[0]).toMatchObject({ status: 'ok', reached_goal: true, probability: 0.5, weight: 2 });
      const j = await get('/api/judge');
      expect(j.runs[0]).toMatchObject({ status: 'ok', judged: sampled.length });
      expect(j.trajectories).toMatchObject({ judged: sampled.length });
    } finally {
      await env?.close();
      env = undefined;
      await dropDatabase(url);
    }
  });
});
