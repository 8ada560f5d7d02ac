/**
 * Each source's state (GET /api/sources): for Langfuse the persisted watermark, lag, API mode, last
 * error and counts (shared by all replicas, from the store); for OTLP the counts of this process. No
 * credential is ever part of the answer. A restricted reader gets the OTLP calls of its services and
 * no span count or Langfuse counts, feedback scores included (those are not kept per service).
 */
import type { Reader } from './reader.js';
import { isRestricted } from '../util/service-view.js';

type Counter = { get(): Promise<{ values: { labels: Record<string, string | number>; value: number }[] }> };

async function sumBy(
  counter: Counter,
  source: string,
  sees: (service: string) => boolean = () => true,
): Promise<number> {
  const m = await counter.get();
  return m.values
    .filter((v) => v.labels['source'] === source && sees(String(v.labels['service'] ?? '')))
    .reduce((a, v) => a + v.value, 0);
}

export async function sourcesSnapshot(r: Reader) {
  const restricted = isRestricted(r.view);
  const otlp = {
    name: 'otlp',
    enabled: true,
    // Pushed, not pulled: there is no watermark to be behind.
    watermark: null,
    lagSeconds: null,
    lastError: null,
    counts: {
      spans: restricted ? null : await sumBy(r.metrics.spansReceived, 'otlp'),
      calls: await sumBy(r.metrics.toolCalls, 'otlp', r.view.sees),
    },
    countsSince: 'process start',
  };
  let langfuse: object = { name: 'langfuse', enabled: false };
  if (r.langfuse) {
    const info = (await r.langfuse()) as Record<string, unknown>;
    const feedback = info['feedback'] as Record<string, unknown> | undefined;
    langfuse = restricted
      ? { ...info, counts: null, pendingScores: null, ...(feedback ? { feedback: { ...feedback, scores: null } } : {}) }
      : info;
  }
  return { sources: [otlp, langfuse] };
}
