/**
 * GET /api/sources — each source's state: for Langfuse the persisted watermark, lag, API mode, last
 * error and counts (shared by all replicas, from the store); for OTLP the counts of this process.
 * No credential is ever part of the answer.
 */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/registry.js';

export interface SourcesOptions {
  metrics: Metrics;
  /** Undefined when the Langfuse source is not enabled. */
  langfuse?: () => Promise<object>;
}

async function sumBy(counter: { get(): Promise<{ values: { labels: Record<string, string | number>; value: number }[] }> }, source: string): Promise<number> {
  const m = await counter.get();
  return m.values.filter((v) => v.labels['source'] === source).reduce((a, v) => a + v.value, 0);
}

export async function sourcesRoutes(app: FastifyInstance, opts: SourcesOptions): Promise<void> {
  app.get('/api/sources', async () => {
    const { metrics } = opts;
    const otlp = {
      name: 'otlp',
      enabled: true,
      // Pushed, not pulled: there is no watermark to be behind.
      watermark: null,
      lagSeconds: null,
      lastError: null,
      counts: { spans: await sumBy(metrics.spansReceived, 'otlp'), calls: await sumBy(metrics.toolCalls, 'otlp') },
      countsSince: 'process start',
    };
    const langfuse = opts.langfuse ? await opts.langfuse() : { name: 'langfuse', enabled: false };
    return { sources: [otlp, langfuse] };
  });
}
