/** One toolwatch (real app, real socket, SQLite or PostgreSQL) with the judge pointed at a fake OpenAI server. */
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { otelClient } from '../helpers/otel.js';
import { agentTrace } from './agent.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import type { ServiceOverrides } from '../../src/services.js';

export interface JudgeEnv {
  tw: Harness;
  fake: FakeOpenAI;
  /** Sends traces through the real OTel exporter and waits until the judge may consider them complete. */
  send(traces: { tag: string; failing?: boolean; service?: string }[]): Promise<string[]>;
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

export async function judgeEnv(
  opts: {
    judge?: Record<string, unknown>;
    script?: FakeOpenAI['script'];
    services?: ServiceOverrides;
    databaseUrl?: string;
    /** The `alerts:` section (rules over the judge's verdicts). */
    alerts?: Record<string, unknown>;
  } = {},
): Promise<JudgeEnv> {
  const fake = await startFakeOpenAI(opts.script);
  const tw = await startToolwatch({
    env: { JUDGE_API_KEY: 'test-judge-key' },
    // Candidates complete only when a test runs the judge (the minute job would race with it).
    services: { judgeCompleteEveryMs: 0, ...opts.services },
    config: {
      ...(opts.databaseUrl ? { database_url: opts.databaseUrl } : {}),
      ...(opts.alerts ? { alerts: opts.alerts } : {}),
      judge: {
        enabled: true,
        base_url: fake.baseUrl,
        model: 'judge-model-1',
        sample_rate: 1,
        idle: '1ms',
        timeout: '400ms',
        max_retries: 2,
        max_retry_wait: '3s',
        concurrency: 2,
        redact: { fields: ['password'], patterns: ['ACME-\\d{6}'] },
        ...opts.judge,
      },
    },
  });
  return {
    tw,
    fake,
    async send(traces) {
      const ids: string[] = [];
      for (const service of new Set(traces.map((t) => t.service ?? 'support-agent'))) {
        const client = otelClient(tw.url, { service, batchSize: 2 });
        for (const t of traces.filter((x) => (x.service ?? 'support-agent') === service))
          ids.push(agentTrace(client.tracer, t));
        await client.flush();
        await client.shutdown();
      }
      await new Promise((r) => setTimeout(r, 5)); // past judge.idle (1ms)
      return ids;
    },
    async metric(name, labels = {}) {
      return metricValue(await tw.metrics(), name, labels);
    },
    async close() {
      await tw.close();
      await fake.close();
    },
  };
}
