/**
 * Replay into the golden set, end to end: real OTel exporter traffic into the real app (judge on,
 * one service's trajectories kept, another's dropped), feedback and verdicts, then
 * `toolwatch eval export` and GET /api/export/cases — what each case holds, redaction of every
 * planted secret asserted on the written file, duplicates merged, bad filters refused (exit 2,
 * nothing written), fail-closed redaction — and the exported file run by `toolwatch eval` as a suite
 * against the local chat-completions server once its `expected` fields are filled.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as yaml } from 'yaml';
import { runCli } from '../../src/cli.js';
import type { Report } from '../../src/eval/report.js';
import { FeedbackStore } from '../../src/feedback/store.js';
import { JudgeStore } from '../../src/judge/store.js';
import { exportCases, RedactionError, type ExportedCase } from '../../src/replay/export.js';
import { runExport } from '../../src/replay/cli.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { verdictJson } from '../fakes/openai.js';
import type { FakeServer, Reply } from '../fakes/scripted.js';
import { agentTrace } from '../judge/agent.js';
import { PLANTED } from '../judge/planted.js';
import { judgeEnv, type JudgeEnv } from '../judge/setup.js';
import { otelClient } from '../helpers/otel.js';
import { evalCli, tempDir, writeSuite } from '../eval/helpers.js';
import { supportTrace } from './traffic.js';

let env: JudgeEnv;
let tmp: ReturnType<typeof tempDir>;
let configFile: string;
const ids: Record<string, string> = {};

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(
    ['eval', 'export', ...args, '--config', configFile],
    {},
    { out: (s) => (out += s), err: (s) => (err += s) },
  );
  return { code, out, err };
}

const lines = (file: string): ExportedCase[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as ExportedCase);

beforeAll(async () => {
  tmp = tempDir('toolwatch-export-');
  env = await judgeEnv({
    // support-agent's trajectories are all kept; lean-agent's are dropped when they complete.
    judge: { sample_rate: 0, service_rates: { 'support-agent': 1 } },
    script: (_, req) => ({
      content: verdictJson({ reached_goal: !req.raw.includes('[goal-miss'), unnecessary_calls: 0 }),
    }),
  });
  for (const [service, traces] of [
    [
      'support-agent',
      [
        ['mismatch-1', { mismatch: true }],
        ['happy-4', {}],
        ['goal-miss-5', {}],
      ],
    ],
    [
      'lean-agent',
      [
        ['lean-3', { mismatch: true }],
        ['lean-3', { mismatch: true }],
        ['blind-7', { mismatch: true, captureInput: false }],
      ],
    ],
  ] as const) {
    const client = otelClient(env.tw.url, { service, batchSize: 3 });
    for (const [i, [tag, o]] of traces.entries())
      ids[`${tag}${i === 1 && tag === 'lean-3' ? '-dup' : ''}`] = supportTrace(client.tracer, { tag, ...o });
    if (service === 'support-agent')
      ids['broken-json-2'] = agentTrace(client.tracer, { tag: 'broken-json-2', failing: true });
    await client.flush();
    await client.shutdown();
  }
  await new Promise((r) => setTimeout(r, 5));
  // Negative feedback on a clean trace, before the judge run that completes it.
  const fb = await env.tw.app.inject({
    method: 'POST',
    url: '/api/feedback',
    payload: { trace_id: ids['happy-4']!, value: 'down', comment: `call me at ${PLANTED.phoneE164}` },
  });
  expect(fb.statusCode).toBe(200);
  await env.tw.services.judge!.job!.run();
  configFile = path.join(env.tw.dir, 'export.yaml');
  writeFileSync(
    configFile,
    yaml({
      database_url: path.join(env.tw.dir, 'toolwatch.db'),
      log_level: 'silent',
      judge: { redact: { fields: ['password'], patterns: ['ACME-\\d{6}'] } },
    }),
  );
});

afterAll(async () => {
  await env?.close();
  tmp?.remove();
});

describe('toolwatch eval export', () => {
  let file: string;
  let cases: ExportedCase[];
  let run: { code: number; err: string };

  beforeAll(async () => {
    file = path.join(tmp.dir, 'candidates.jsonl');
    run = await cli(['--since', '1h', '--out', file]);
    cases = lines(file);
  });

  it('writes one draft case per failing answer, kept trajectory or failure record, merged by content', () => {
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/5 case\(s\) from 7 trace\(s\), 1 duplicate\(s\) merged, 1 skipped: no user message/);
    const byTrace = new Map(cases.map((c) => [c.trace_id, c]));
    // One of the twin lean-3 traces (the newer) carries their one case; the other is listed with it.
    const twins = [ids['lean-3']!, ids['lean-3-dup']!];
    const twin = cases.find((c) => twins.includes(c.trace_id))!;
    expect(new Set(cases.map((c) => c.trace_id))).toEqual(
      new Set([ids['mismatch-1'], ids['broken-json-2'], ids['happy-4'], ids['goal-miss-5'], twin.trace_id]),
    );
    for (const c of cases) {
      expect(c).toMatchObject({ expected: null, review: true });
      expect(c.id).toMatch(/^prod-[0-9a-f]{16}$/);
      expect(c.tags[0]).toBe('production');
    }
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);

    // A failing answer inside a kept trajectory: the conversation up to it, the tools it was offered, what it did.
    const step = byTrace.get(ids['mismatch-1']!)!;
    expect(step.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(step.messages[1]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'mismatch-1-1', type: 'function', function: { name: 'lookup_customer' } }],
    });
    expect(step.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'mismatch-1-1' });
    expect(step.tools!.map((t) => t.name)).toEqual(['lookup_customer', 'refund_order']);
    expect(step.observed.calls).toEqual([
      {
        name: 'refund_order',
        arguments: expect.stringContaining('"order_id":7'),
        outcome: 'SchemaMismatch',
        errors: expect.arrayContaining(['/order_id must be string']),
      },
    ]);
    expect(step.tags).toEqual(['production', 'SchemaMismatch']);
    expect(step.metadata).toMatchObject({
      origin: 'trajectory_step',
      service: 'support-agent',
      model: 'gpt-4o',
      verdict: { reached_goal: true },
    });

    expect(byTrace.get(ids['broken-json-2']!)!.observed.calls).toEqual([
      { name: 'refund_order', arguments: '{"order_id": ord_', outcome: 'InvalidJson', errors: [expect.any(String)] },
    ]);

    // Picked for its feedback or its verdict: the whole trajectory, from the user's message.
    const unhappy = byTrace.get(ids['happy-4']!)!;
    expect(unhappy.messages).toEqual([
      { role: 'user', content: expect.stringContaining('[happy-4] Refund my last order.') },
    ]);
    expect(unhappy.observed.calls.map((c) => [c.name, c.outcome])).toEqual([['lookup_customer', 'valid']]);
    expect(unhappy.observed.text).toMatch(/^Done; we will call \[PHONE\]\.$/);
    expect(unhappy.tags).toEqual(['production', 'negative-feedback']);
    expect(unhappy.metadata).toMatchObject({
      origin: 'trajectory',
      feedback: { value: -1, comments: ['call me at [PHONE]'] },
    });
    expect(byTrace.get(ids['goal-miss-5']!)!.tags).toEqual(['production', 'goal-missed']);

    // No trajectory kept: the failure record with the user's message and tools kept beside it; its twin merged.
    const record = twin;
    expect(record.messages).toEqual([
      { role: 'user', content: expect.stringContaining('[lean-3] Refund my last order.') },
    ]);
    expect(record.tools!.map((t) => t.name)).toEqual(['lookup_customer', 'refund_order']);
    expect(record.observed.calls.map((c) => [c.name, c.outcome])).toEqual([['refund_order', 'SchemaMismatch']]);
    expect(record.metadata).toMatchObject({ origin: 'failure_record', service: 'lean-agent', partial: true });
    expect(record.metadata.also_seen_in).toEqual(twins.filter((t) => t !== twin.trace_id));
  });

  it('records the definition version each tool was offered in, as GET /api/tools lists them', async () => {
    const step = cases.find((c) => c.trace_id === ids['mismatch-1'])!;
    const record = cases.find((c) => c.metadata.origin === 'failure_record')!;
    for (const c of [step, record]) {
      const versions = c.metadata.definition_versions!;
      expect(Object.keys(versions).sort()).toEqual(['lookup_customer', 'refund_order']);
      for (const [tool, version] of Object.entries(versions)) {
        const res = await env.tw.app.inject({ url: `/api/tools/${c.metadata.service}/${tool}` });
        expect(res.statusCode).toBe(200);
        expect(res.json().versions.map((v: { version: string }) => v.version)).toContain(version);
      }
    }
  });

  it('redacts every planted secret in the written file (the judge redactor, fields and patterns included)', () => {
    const text = readFileSync(file, 'utf8');
    for (const [name, secret] of Object.entries(PLANTED)) expect([name, text.includes(secret)]).toEqual([name, false]);
    // Also the pieces a secret may be split into (a card without its separators).
    expect(text).not.toContain('4111111111111111');
    for (const mask of ['[EMAIL]', '[CARD]', '[SECRET]', '[PHONE]', '[REDACTED]']) expect(text).toContain(mask);
  });

  it('narrows by outcome, feedback, judge verdict, service and trace', async () => {
    const only = async (args: string[]) => {
      const out = path.join(tmp.dir, `only-${args.join('-').replace(/[^a-z0-9]/gi, '')}.jsonl`);
      const r = await cli(['--out', out, ...args]);
      expect(r.code).toBe(0);
      return lines(out).map((c) => c.trace_id);
    };
    const mismatches = await only(['--outcome', 'SchemaMismatch']);
    expect(mismatches).toHaveLength(2); // the twin lean-3 traces are one case; blind-7 has no user message
    expect(mismatches).toContain(ids['mismatch-1']);
    expect([ids['lean-3'], ids['lean-3-dup']]).toContain(mismatches.find((t) => t !== ids['mismatch-1']));
    expect(await only(['--outcome', 'invalidjson'])).toEqual([ids['broken-json-2']]);
    expect(await only(['--feedback', 'negative'])).toEqual([ids['happy-4']]);
    expect(await only(['--judge', 'reached_goal=false'])).toEqual([ids['goal-miss-5']]);
    expect(
      new Set(await only(['--judge', 'reached_goal=true,unnecessary_calls=0', '--service', 'support-agent'])),
    ).toEqual(new Set([ids['mismatch-1'], ids['happy-4'], ids['broken-json-2']]));
    expect(await only(['--service', 'lean-agent'])).toHaveLength(1);
    expect(await only(['--trace-id', ids['mismatch-1']!.toUpperCase()])).toEqual([ids['mismatch-1']]);
    expect(await only(['--feedback', 'negative', '--outcome', 'SchemaMismatch'])).toEqual([]);
    expect(await only(['--since', new Date(Date.now() + 60_000).toISOString()])).toEqual([]);
  });

  it('refuses bad or unknown filters with every problem at once: exit 2, nothing written', async () => {
    const out = path.join(tmp.dir, 'never.jsonl');
    const r = await cli([
      '--out',
      out,
      '--outcome',
      'SchemaMismatch,Bogus',
      '--feedback',
      'sad',
      '--judge',
      'reached=1,unnecessary_calls>lots',
      '--since',
      'yesterday',
      '--limit',
      '0',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--since: "yesterday" is not a duration');
    expect(r.err).toContain('--outcome: "Bogus" is not one of InvalidJson, UnknownName, SchemaMismatch');
    expect(r.err).toContain('--feedback: "sad" is not one of negative, neutral, positive, any');
    expect(r.err).toContain('--judge: "reached=1" is not a condition');
    expect(r.err).toContain('--judge: unnecessary_calls compares with a whole number');
    expect(r.err).toContain('--limit: must be a whole number from 1 to 10000');
    expect(existsSync(out)).toBe(false);
    expect((await cli(['--out', out, '--judge', 'reached_goal>true'])).code).toBe(2);
    expect((await cli(['--out', out, '--colour', 'red'])).code).toBe(2);
    expect((await cli(['--since', '1h'])).err).toContain('--out: required');
    expect(existsSync(out)).toBe(false);
    // An existing file is not overwritten; --append adds only cases it does not hold yet.
    const again = await cli(['--since', '1h', '--out', file]);
    expect(again.code).toBe(2);
    expect(again.err).toContain('exists; add --append');
    expect(lines(file)).toHaveLength(5);
    const appended = await cli(['--since', '1h', '--out', file, '--append']);
    expect(appended.code).toBe(0);
    expect(appended.err).toContain('0 case(s) from 7 trace(s), 1 duplicate(s) merged, 5 already in the file');
    expect(lines(file)).toHaveLength(5);
  });

  it('fails closed when redaction cannot run: nothing written, exit 1', async () => {
    const out = path.join(tmp.dir, 'unredacted.jsonl');
    const filters = { since: '1h', sinceMs: Date.now() - 3_600_000, limit: 100 };
    const err: string[] = [];
    const code = await runExport(
      { out, append: false, filters },
      { sql: env.tw.services.store.sql, redact: { fields: [], patterns: ['(unclosed'] } },
      { out: () => {}, err: (s) => err.push(s) },
    );
    expect(code).toBe(1);
    expect(err.join('')).toContain('redaction failed, nothing exported');
    expect(existsSync(out)).toBe(false);
    // A redactor that breaks halfway (on the third string) stops the whole export too.
    let n = 0;
    const breaking = () => {
      const boom = (s: unknown) => {
        if (++n === 3) throw new Error('boom');
        return s;
      };
      return {
        text: boom as (s: string) => string,
        value: boom,
        strings: boom,
        jsonText: boom as (s: string) => string,
      };
    };
    const sql = env.tw.services.store.sql;
    await expect(
      exportCases({ sql, judge: new JudgeStore(sql), feedback: new FeedbackStore(sql), redactor: breaking }, filters),
    ).rejects.toBeInstanceOf(RedactionError);
  });
});

describe('toolwatch eval export --problem / --problems', () => {
  const problemsOf = async () =>
    (await env.tw.app.inject({ method: 'GET', url: '/api/problems?since=1h' })).json<{
      problems: { id: string; service: string; outcome: string; occurrences: number; signature: string }[];
    }>().problems;

  it("writes a problem's kept examples as draft cases, tagged with the problem and its signature", async () => {
    const problems = await problemsOf();
    const lean = problems.find((p) => p.service === 'lean-agent' && p.outcome === 'SchemaMismatch')!;
    expect(lean.occurrences).toBe(3);
    const out = path.join(tmp.dir, 'problem.jsonl');
    const r = await cli(['--out', out, '--problem', lean.id]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/case\(s\) from \d+ trace\(s\) of 1 problem\(s\)/);
    const got = lines(out) as (ExportedCase & { metadata: { problem: { id: string; signature: string } } })[];
    // lean-agent keeps no trajectory: each case is a failure record (the twins merge into one; blind-7 has no user message).
    expect(got.length).toBeGreaterThanOrEqual(1);
    for (const c of got) {
      expect(c.tags).toContain(`problem:${lean.id}`);
      expect(c.metadata.problem).toEqual({ id: lean.id, outcome: 'SchemaMismatch', signature: lean.signature });
      expect(c.metadata).toMatchObject({ origin: 'failure_record', service: 'lean-agent' });
      expect(c.observed.calls.map((x) => x.outcome)).toEqual(['SchemaMismatch']);
      expect([ids['lean-3'], ids['lean-3-dup'], ids['blind-7']]).toContain(c.trace_id);
    }
    const text = readFileSync(out, 'utf8');
    for (const [name, secret] of Object.entries(PLANTED)) expect([name, text.includes(secret)]).toEqual([name, false]);
  });

  it('--problems open takes every open problem; a kept trajectory gives the answer in its conversation', async () => {
    const out = path.join(tmp.dir, 'open.jsonl');
    const r = await cli(['--out', out, '--problems', 'open']);
    expect(r.code).toBe(0);
    const got = lines(out) as (ExportedCase & { metadata: { problem: { id: string } } })[];
    const problems = await problemsOf();
    expect(new Set(got.map((c) => c.metadata.problem.id))).toEqual(new Set(problems.map((p) => p.id)));
    const step = got.find((c) => c.trace_id === ids['mismatch-1'])!;
    expect(step.metadata.origin).toBe('trajectory_step');
    expect(step.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    // Nothing resolved yet: an empty file, not an error.
    const none = await cli(['--out', path.join(tmp.dir, 'resolved.jsonl'), '--problems', 'resolved']);
    expect(none.code).toBe(0);
    expect(none.err).toContain('0 case(s) from 0 trace(s) of 0 problem(s)');
  });

  it('refuses a bad id or status, both at once, or trace filters beside them: exit 2, nothing written', async () => {
    const out = path.join(tmp.dir, 'never-problem.jsonl');
    const bad = await cli(['--out', out, '--problem', 'abc,6b7b8602a08d5227']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--problem: "abc" is not a problem id');
    const status = await cli(['--out', out, '--problems', 'closed']);
    expect(status.err).toContain('--problems: must be one of open, resolved, regressed, muted');
    const both = await cli(['--out', out, '--problems', 'open', '--problem', '6b7b8602a08d5227', '--since', '1h']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('--problem and --problems: give one of them');
    expect(both.err).toContain('--since: does not combine with --problem/--problems');
    expect(existsSync(out)).toBe(false);
  });
});

describe('GET /api/export/cases and the page', () => {
  it('answers the same cases as JSON Lines (or JSON with a summary), 400 for bad filters, and the page links it per failure', async () => {
    const res = await env.tw.app.inject({ method: 'GET', url: '/api/export/cases?since=1h' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="toolwatch-cases-\d{4}-\d{2}-\d{2}\.jsonl"$/,
    );
    const api = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ExportedCase);
    const viaCli = path.join(tmp.dir, 'for-api.jsonl');
    expect((await cli(['--since', '1h', '--out', viaCli])).code).toBe(0);
    const cliCases = lines(viaCli);
    expect(new Set(api.map((c) => c.id))).toEqual(new Set(cliCases.map((c) => c.id)));
    for (const secret of Object.values(PLANTED)) expect(res.body).not.toContain(secret);
    const json = (
      await env.tw.app.inject({ method: 'GET', url: '/api/export/cases?since=1h&format=json&outcome=InvalidJson' })
    ).json();
    expect(json.summary).toMatchObject({ cases: 1, traces: 1, duplicates: 0, truncated: false });
    expect(json.cases[0].trace_id).toBe(ids['broken-json-2']);
    const bad = await env.tw.app.inject({ method: 'GET', url: '/api/export/cases?outcome=Nope&judge=x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().problems).toHaveLength(2);
    expect((await env.tw.app.inject({ method: 'GET', url: '/api/export/cases?colour=red' })).statusCode).toBe(400);

    const page = (await env.tw.app.inject({ method: 'GET', url: '/?window=1h' })).body;
    const link = new RegExp(
      `href="(/api/export/cases\\?trace_id=${ids['mismatch-1']}&amp;since=[^"]+)"[^>]*>export as eval cases<`,
    );
    const m = link.exec(page);
    expect(m).not.toBeNull();
    const linked = await env.tw.app.inject({ method: 'GET', url: m![1]!.replaceAll('&amp;', '&') });
    expect(
      linked.body
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as ExportedCase).trace_id),
    ).toEqual([ids['mismatch-1']]);
  });
});

describe('the exported file as a suite', () => {
  let model: FakeServer;
  afterAll(async () => model?.close());

  it('is accepted by toolwatch eval: waits for review as exported, runs and scores once expected is filled', async () => {
    const exportedFile = path.join(tmp.dir, 'for-suite.jsonl');
    expect((await cli(['--since', '1h', '--out', exportedFile])).code).toBe(0);
    const exported = lines(exportedFile);
    const suite = path.join(tmp.dir, 'suite');
    const write = (cases: unknown[]) =>
      writeSuite(suite, { suite: { dataset_version: 'prod-2026-01', timeout: '5s', max_retries: 0 }, cases });
    // What a person decides the model should have done, by origin of the case.
    const expectations: Record<string, { expected: unknown; reply: Reply }> = {};
    for (const c of exported) {
      const user = c.messages.findLast((m) => m.role === 'user')!.content as string;
      const wantsText = c.tags.includes('goal-missed') || c.tags.includes('negative-feedback');
      expectations[user] = wantsText
        ? { expected: { kind: 'text' }, reply: { text: 'I need your order number first.' } }
        : {
            expected: { kind: 'tool', name: 'refund_order', arguments: { order_id: 'ord_7' } },
            reply: { calls: [{ name: 'refund_order', arguments: { order_id: 'ord_7' } }] },
          };
    }
    // The suite the export is appended to already holds a reviewed case of its own.
    const own = {
      id: 'greeting',
      messages: [{ role: 'user', content: 'Hello!' }],
      tools: [exported[0]!.tools![0]],
      expected: { kind: 'text' },
    };
    expectations['Hello!'] = { expected: own.expected, reply: { text: 'Hi, how can I help?' } };
    model = await startChatCompletions(
      (req) => expectations[req.key]?.reply ?? { status: 400, message: `no script for ${req.key}` },
    );

    // As exported: every exported case waits for review and is skipped; only the suite's own case is sent.
    write([own, ...exported]);
    const waiting = await evalCli([
      'run',
      '--suite',
      suite,
      '--model',
      'agent-model',
      '--base-url',
      model.baseUrl,
      '--out',
      path.join(tmp.dir, 'waiting.jsonl'),
      '--report',
      path.join(tmp.dir, 'waiting.json'),
    ]);
    expect(waiting.code).toBe(0);
    expect(waiting.out).toContain(`${exported.length} case(s) waiting for review were not run`);
    const waitingReport = JSON.parse(readFileSync(path.join(tmp.dir, 'waiting.json'), 'utf8')) as Report;
    expect(waitingReport.suite.skipped).toHaveLength(exported.length);
    expect(waitingReport.suite.skipped.map((x) => x.traceId).sort()).toEqual(exported.map((c) => c.trace_id).sort());
    expect(model.received.map((r) => r.key)).toEqual(['Hello!']);

    // Reviewed: expected filled (review left as exported — a filled case runs whatever review says).
    const reviewed = exported.map((c) => ({
      ...c,
      expected: expectations[c.messages.findLast((m) => m.role === 'user')!.content as string]!.expected,
    }));
    write([own, ...reviewed]);
    const pred = path.join(tmp.dir, 'pred.jsonl');
    const reportFile = path.join(tmp.dir, 'report.json');
    const ran = await evalCli([
      'run',
      '--suite',
      suite,
      '--model',
      'agent-model',
      '--base-url',
      model.baseUrl,
      '--out',
      pred,
      '--report',
      reportFile,
    ]);
    expect(ran.err).not.toContain('error');
    expect(ran.code).toBe(0);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    const n = exported.length + 1;
    expect(report.suite).toMatchObject({ cases: n, skipped: [] });
    const m = report.models[0]!;
    expect(m.overall.strictPassRate).toMatchObject({ numerator: n, denominator: n });
    expect(m.cases.flatMap((c) => (c.traceId ? [c.traceId] : [])).sort()).toEqual(
      exported.map((c) => c.trace_id).sort(),
    );
    // The conversation went out as exported: history, tool results and tools (redacted) included.
    const stepCase = exported.find((c) => c.metadata.origin === 'trajectory_step' && c.messages.length === 3)!;
    const sent = model.received.find((r) => r.key === stepCase.messages[0]!.content)!;
    expect((sent.body.messages as { role: string }[]).map((x) => x.role)).toEqual(['user', 'assistant', 'tool']);
    expect((sent.body.tools as unknown[]).length).toBe(2);
    // And `eval score` reads the same predictions against the same suite.
    const scored = await evalCli(['score', '--suite', suite, '--pred', pred]);
    expect(scored.code).toBe(0);
    expect(scored.out).toContain(`strict pass 100.0% (${n}/${n})`);
  });
});
