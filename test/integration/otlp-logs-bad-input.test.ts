/**
 * What /v1/logs answers to input it cannot take, as /v1/traces does: 415 for another content type,
 * 400 (a google.rpc.Status) for a body that is no ExportLogsServiceRequest, and 200 with
 * partialSuccess.rejectedLogRecords for the records it could not read, the rest kept.
 */
import pb from 'protobufjs/minimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';

const TRACE = '5b8efff798038103d269b633813fc60c';
const SPAN = 'eee19b7ec3c1b174';

const choice = (id: string) => ({
  kvlistValue: {
    values: [
      { key: 'index', value: { intValue: '0' } },
      {
        key: 'message',
        value: {
          kvlistValue: {
            values: [
              { key: 'role', value: { stringValue: 'assistant' } },
              {
                key: 'tool_calls',
                value: {
                  arrayValue: {
                    values: [
                      {
                        kvlistValue: {
                          values: [
                            { key: 'id', value: { stringValue: id } },
                            {
                              key: 'function',
                              value: {
                                kvlistValue: {
                                  values: [
                                    { key: 'name', value: { stringValue: 'get_weather' } },
                                    { key: 'arguments', value: { stringValue: '{"city":"Oslo"}' } },
                                  ],
                                },
                              },
                            },
                          ],
                        },
                      },
                    ],
                  },
                },
              },
            ],
          },
        },
      },
    ],
  },
});

describe('/v1/logs refuses what it cannot read', () => {
  let tw: Harness;
  beforeAll(async () => {
    tw = await startToolwatch();
  });
  afterAll(async () => {
    await tw.close();
  });

  const post = (body: string | Uint8Array, type: string) =>
    fetch(`${tw.url}/v1/logs`, { method: 'POST', body, headers: { 'content-type': type } });

  it('415 for a content type that is neither protobuf nor JSON', async () => {
    const res = await post('hello', 'text/plain');
    expect(res.status).toBe(415);
    expect(((await res.json()) as { message: string }).message).toMatch(/Content-Type must be/);
  });

  it.each([
    ['not JSON', '{', /invalid JSON/],
    ['not an object', '[1]', /must be a JSON object \(ExportLogsServiceRequest\)/],
    ['resourceLogs not a list', '{"resourceLogs": 3}', /resourceLogs must be an array/],
  ])('400 for JSON %s', async (_what, body, message) => {
    const res = await post(body, 'application/json');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(message);
  });

  it('400 for truncated protobuf', async () => {
    const w = pb.Writer.create();
    w.uint32((1 << 3) | 2).uint32(50); // a resource_logs field claiming 50 bytes that are not there
    const res = await post(w.finish(), 'application/x-protobuf');
    expect(res.status).toBe(400);
  });

  it('an unreadable record is rejected through partialSuccess, the readable one counted', async () => {
    const record = (id: string, attributes: unknown) => ({
      traceId: TRACE,
      spanId: SPAN,
      eventName: 'gen_ai.choice',
      timeUnixNano: String(Date.now() * 1e6),
      attributes,
      body: choice(id),
    });
    const body = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bad-logs' } }] },
          scopeLogs: [{ logRecords: [record('call_ok', []), record('call_bad', { not: 'a list' })] }],
        },
      ],
    };
    const res = await post(JSON.stringify(body), 'application/json');
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    expect(answer.partialSuccess.rejectedLogRecords).toBe('1');
    expect(answer.partialSuccess.errorMessage).toMatch(/attributes must be an array/);
    await tw.services.pipeline.settle(Date.now() + 3_600_000);
    expect(metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service: 'bad-logs' })).toBe(1);
    expect(
      metricValue(await tw.metrics(), 'toolwatch_ingest_rejected_total', { reason: 'unreadable_log_record' }),
    ).toBe(1);
  });
});
