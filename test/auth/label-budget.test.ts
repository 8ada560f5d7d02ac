/**
 * The shared label cap must not blind other tenants (issue 17, finding 4): one service-restricted
 * token inventing service, tool and model names uses up at most its own share
 * (`metrics.max_label_values_per_token`), and another team's new names are still stored, counted
 * and read under their own names.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { chatResourceSpans } from '../helpers/otlp-json.js';
import { bearer, tokenConfig, type TestToken } from './tokens.js';

const MAX = 20;
const PER_TOKEN = 5;
let n = 0;

/** A chat span of `service` proposing a call of `tool` (offered), from model `model`. */
function chat(service: string, tool: string, model: string) {
  n++;
  return chatResourceSpans({
    service,
    traceId: n.toString(16).padStart(32, 'e'),
    spanId: n.toString(16).padStart(16, 'f'),
    definitions: JSON.stringify([{ type: 'function', name: tool, parameters: { type: 'object' } }]),
    endMs: Date.now(),
    model,
    call: { id: `c${n}`, name: tool, arguments: '{}' },
  });
}

/** A tool span alone (its call waits for a proposal, then is counted from it). */
function toolOnly(service: string, tool: string) {
  n++;
  const now = Date.now();
  return {
    resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
    scopeSpans: [
      {
        spans: [
          {
            traceId: n.toString(16).padStart(32, 'e'),
            spanId: n.toString(16).padStart(16, 'f'),
            name: `execute_tool ${tool}`,
            startTimeUnixNano: String((now - 10) * 1e6),
            endTimeUnixNano: String(now * 1e6),
            attributes: [
              { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
              { key: 'gen_ai.tool.name', value: { stringValue: tool } },
              { key: 'gen_ai.tool.call.id', value: { stringValue: `c${n}` } },
            ],
          },
        ],
      },
    ],
  };
}

describe('label values are budgeted per token', () => {
  let dir: string;
  let tw: Harness;
  let t: Record<string, TestToken>;
  const post = async (token: TestToken, resourceSpans: unknown[]) => {
    const res = await tw.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      payload: JSON.stringify({ resourceSpans }),
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-labels-'));
    const made = tokenConfig(dir, {
      noisy: { scopes: ['ingest'], services: ['noisy-*'] },
      quiet: { scopes: ['ingest', 'read'], services: ['quiet'] },
    });
    t = made.tokens;
    tw = await startToolwatch({
      config: { auth: made.auth, metrics: { max_label_values: MAX, max_label_values_per_token: PER_TOKEN } },
    });
  });
  afterAll(async () => {
    await tw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("names invented by one token (3× the cap) leave another team's new service, tool and model their names", async () => {
    const names = Array.from({ length: 3 * MAX }, (_, i) => i);
    await post(
      t.noisy!,
      names.map((i) => chat(`noisy-${i}`, `tool-${i}`, `model-${i}`)),
    );
    // Calls that wait for their proposal are labelled when counted, under the same budget.
    await post(
      t.noisy!,
      names.map((i) => toolOnly(`noisy-late-${i}`, `late-tool-${i}`)),
    );
    await tw.services.pipeline.settle(Date.now() + 60_000);
    await post(t.quiet!, [chat('quiet', 'lookup', 'quiet-model')]);

    const text = await tw.metrics();
    expect(
      metricValue(text, 'toolwatch_tool_calls_total', { service: 'quiet', tool: 'lookup', model: 'quiet-model' }),
    ).toBe(1);
    // The noisy token's labels kept its first names, its share; the rest are `_other` in /metrics only:
    // the store keeps every name (only Prometheus labels are capped), all counted.
    const noisy = (await tw.services.store.callCounts({ sinceMs: 0 })).filter((r) => r.service !== 'quiet');
    expect(noisy.reduce((s, r) => s + Number(r.count), 0)).toBe(6 * MAX);
    expect(new Set(noisy.map((r) => r.service)).size).toBe(6 * MAX);
    const labelled = new Set(
      [...text.matchAll(/^toolwatch_tool_calls_total\{[^}]*service="(noisy[^"]*|_other)"/gm)].map((m) => m[1]),
    );
    expect(labelled.size).toBe(PER_TOKEN + 1);
    expect(labelled.has('_other')).toBe(true);

    const stats = await tw.app.inject({ url: '/api/stats', headers: bearer(t.quiet!) });
    expect(JSON.parse(stats.body).tools.map((r: { service: string; tool: string }) => [r.service, r.tool])).toEqual([
      ['quiet', 'lookup'],
    ]);
  });
});

describe('only metric labels are capped: the store keeps real names (issue 17, finding 4)', () => {
  let dir: string;
  let tw: Harness;
  let t: Record<string, TestToken>;
  const post = async (token: TestToken, resourceSpans: unknown[]) => {
    const res = await tw.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      payload: JSON.stringify({ resourceSpans }),
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'toolwatch-labels-'));
    const made = tokenConfig(dir, {
      noisy: { scopes: ['ingest'], services: ['noisy-*'] },
      quiet: { scopes: ['ingest', 'read'], services: ['quiet'] },
    });
    t = made.tokens;
    // The token's share is the whole cap (an operator's choice, or many noisy teams): it can use it all up.
    tw = await startToolwatch({
      config: { auth: made.auth, metrics: { max_label_values: 500, max_label_values_per_token: 500 } },
    });
  });
  afterAll(async () => {
    await tw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("600 services from one restricted token: another team's new service is stored, counted and read under its name", async () => {
    const names = Array.from({ length: 600 }, (_, i) => i);
    await post(
      t.noisy!,
      names.map((i) => chat(`noisy-${i}`, 'lookup', 'noisy-model')),
    );
    await post(t.quiet!, [chat('quiet', 'quiet-tool', 'quiet-model')]);

    // Its own restricted reader sees it under its real name.
    const stats = await tw.app.inject({ url: '/api/stats', headers: bearer(t.quiet!) });
    expect(stats.statusCode).toBe(200);
    const body = JSON.parse(stats.body) as { tools: { service: string; tool: string }[] };
    expect(body.tools.map((r) => [r.service, r.tool])).toEqual([['quiet', 'quiet-tool']]);
    const stored = await tw.services.store.callCounts({ sinceMs: 0 });
    expect(stored.filter((r) => r.service === 'quiet').map((r) => [r.model, Number(r.count)])).toEqual([
      ['quiet-model', 1],
    ]);
    expect(new Set(stored.map((r) => r.service)).size).toBe(601);
    // The cap still bounds /metrics: the service label of the late name is `_other`.
    const text = await tw.metrics();
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service: 'quiet' })).toBe(0);
    expect(metricValue(text, 'toolwatch_tool_calls_total', { service: '_other', tool: 'quiet-tool' })).toBe(1);
  });
});
