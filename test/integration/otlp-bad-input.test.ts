/**
 * Hostile and broken input over a real socket: each gets the status the OTLP spec asks for, the
 * process stays up, nothing is lost that a retry could save, Object.prototype is untouched.
 */
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs/minimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/temp-dir.js';
import type { Store } from '../../src/store/store.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';

const LIMIT = 64 * 1024;
const TRACE = '5b8efff798038103d269b633813fc60c';

function jsonRequest(spans: unknown[], service = 'bad-input'): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [{ scope: { name: 't' }, spans }],
      },
    ],
  });
}

function toolCallSpan(spanId: string, args: string, extra: unknown[] = []) {
  return {
    traceId: TRACE,
    spanId,
    name: 'chat',
    startTimeUnixNano: '1544712660000000000',
    endTimeUnixNano: 1544712661000000000,
    kind: 3,
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      {
        key: 'gen_ai.output.messages',
        value: {
          stringValue: JSON.stringify([
            { role: 'assistant', parts: [{ type: 'tool_call', id: `c-${spanId}`, name: 'f', arguments: args }] },
          ]),
        },
      },
      ...extra,
    ],
  };
}

async function post(url: string, body: Buffer | string, headers: Record<string, string>) {
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', body, headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

function decodeStatus(buf: Buffer): { code: number; message: string } {
  const r = protobuf.Reader.create(buf);
  const out = { code: 0, message: '' };
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) out.code = r.int32();
    else if (tag >>> 3 === 2) out.message = r.string();
    else r.skipType(tag & 7);
  }
  return out;
}

/** ExportTraceServiceResponse{partial_success=1 {rejected_spans=1 int64, error_message=2}}. */
function decodePartial(buf: Buffer): { rejectedSpans: number; errorMessage: string } | undefined {
  const r = protobuf.Reader.create(buf);
  let out: { rejectedSpans: number; errorMessage: string } | undefined;
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 !== 1) {
      r.skipType(tag & 7);
      continue;
    }
    const end = r.uint32() + r.pos;
    out = { rejectedSpans: 0, errorMessage: '' };
    while (r.pos < end) {
      const t = r.uint32();
      if (t >>> 3 === 1) out.rejectedSpans = Number(r.int64());
      else if (t >>> 3 === 2) out.errorMessage = r.string();
      else r.skipType(t & 7);
    }
  }
  return out;
}

afterAll(removeTempDirs);

describe('bad input on /v1/traces', () => {
  let tw: Harness;
  beforeAll(async () => {
    tw = await startToolwatch({ config: { ingest: { max_body_bytes: LIMIT } } });
  });
  afterAll(async () => {
    await tw.close();
  });

  it('400 with a protobuf Status for malformed protobuf', async () => {
    const res = await post(tw.url, Buffer.from([0x0a, 0xff, 0xff, 0x01, 0x02]), {
      'content-type': 'application/x-protobuf',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/x-protobuf');
    const status = decodeStatus(res.body);
    expect(status.code).toBe(3);
    expect(status.message).not.toBe('');
  });

  it('400 with a JSON Status for malformed JSON and for a non-object', async () => {
    for (const body of ['{"resourceSpans": [', '[1,2,3]', '"x"', '{"resourceSpans": 5}']) {
      const res = await post(tw.url, body, { 'content-type': 'application/json' });
      expect(res.status, body).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(JSON.parse(res.body.toString())).toMatchObject({ code: 3, message: expect.any(String) });
    }
  });

  it('415 for other content types and encodings', async () => {
    expect((await post(tw.url, 'hello', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(tw.url, '{}', { 'content-type': 'application/json', 'content-encoding': 'br' })).status).toBe(
      415,
    );
  });

  it('an empty request succeeds', async () => {
    const proto = await post(tw.url, Buffer.alloc(0), { 'content-type': 'application/x-protobuf' });
    expect(proto.status).toBe(200);
    const json = await post(tw.url, '{}', { 'content-type': 'application/json' });
    expect(json.status).toBe(200);
    expect(JSON.parse(json.body.toString())).toEqual({});
  });

  it('base64 ids reject their spans with partialSuccess, the rest is counted', async () => {
    const bad = { ...toolCallSpan('eee19b7ec3c1b174', '{}'), traceId: 'W47/95gDgQPSabYzgT/GDA==' };
    const good = toolCallSpan('eee19b7ec3c1b175', '{}');
    const res = await post(tw.url, jsonRequest([bad, good], 'b64'), { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body.toString());
    expect(Number(body.partialSuccess.rejectedSpans)).toBe(1);
    expect(body.partialSuccess.errorMessage).toMatch(/hex/);
    expect(metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service: 'b64' })).toBe(1);
  });

  it('413 for a body over the limit as sent, and for a gzip bomb after decompression', async () => {
    const big = jsonRequest([toolCallSpan('eee19b7ec3c1b176', 'x'.repeat(LIMIT))]);
    expect((await post(tw.url, big, { 'content-type': 'application/json' })).status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(LIMIT);
    const res = await post(tw.url, bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect((await fetch(`${tw.url}/healthz`)).status).toBe(200);
  });

  it('a 100,000-deep nested attribute value rejects its span, fast, and the process stays up', async () => {
    const depth = 100_000;
    const deep =
      '{"kvlistValue":{"values":[{"key":"k","value":'.repeat(depth) + '{"stringValue":"x"}' + '}]}}'.repeat(depth);
    const span = toolCallSpan('eee19b7ec3c1b177', '{}');
    const body = jsonRequest([{ ...span, attributes: [...span.attributes, { key: 'deep', value: 'DEEP' }] }]).replace(
      '"DEEP"',
      deep,
    );
    const small = await startToolwatch({ config: { ingest: { max_body_bytes: 16 * 1024 * 1024 } } });
    try {
      const started = Date.now();
      const res = await post(small.url, body, { 'content-type': 'application/json' });
      expect(res.status).toBe(200);
      expect(Number(JSON.parse(res.body.toString()).partialSuccess.rejectedSpans)).toBe(1);
      expect(Date.now() - started).toBeLessThan(5_000);

      // The same in protobuf: nested kvlist values. Lengths are computed inside out, then the
      // prefixes written outside in, so building the body stays linear in the depth.
      const w = protobuf.Writer;
      const varint = (n: number) => w.create().uint32(n).finish();
      const core = Uint8Array.from([0x0a, 0x01, 0x78]); // AnyValue{string_value: "x"}
      const prefixes: Uint8Array[] = [];
      let inner = core.length;
      for (let i = 0; i < depth; i++) {
        const kv = Buffer.concat([Uint8Array.from([0x0a, 0x01, 0x6b, 0x12]), varint(inner)]); // KeyValue{key:"k", value:…}
        const kvLen = kv.length + inner;
        const list = Buffer.concat([Uint8Array.from([0x0a]), varint(kvLen)]); // KeyValueList{values:[…]}
        const listLen = list.length + kvLen;
        const any = Buffer.concat([Uint8Array.from([0x32]), varint(listLen)]); // AnyValue{kvlist_value}
        prefixes.push(Buffer.concat([any, list, kv]));
        inner = any.length + listLen;
      }
      const value = Buffer.concat([...prefixes.reverse(), core]);
      const attr = w.create().uint32(10).string('deep').uint32(18).bytes(value).finish();
      const protoSpan = w
        .create()
        .uint32(10)
        .bytes(Buffer.from(TRACE, 'hex'))
        .uint32(18)
        .bytes(Buffer.from('eee19b7ec3c1b178', 'hex'))
        .uint32(42)
        .string('s')
        .uint32(74)
        .bytes(attr)
        .finish();
      const scope = w.create().uint32(18).bytes(protoSpan).finish();
      const rs = w.create().uint32(18).bytes(scope).finish();
      const req = Buffer.from(w.create().uint32(10).bytes(rs).finish());
      const pres = await post(small.url, req, { 'content-type': 'application/x-protobuf' });
      expect(pres.status).toBe(200);
      expect(decodePartial(pres.body)).toEqual({
        rejectedSpans: 1,
        errorMessage: expect.stringMatching(/deeper than/),
      });
      expect((await fetch(`${small.url}/healthz`)).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it('__proto__ keys are plain data: Object.prototype is untouched', async () => {
    const args = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';
    const span = toolCallSpan('eee19b7ec3c1b179', args, [
      { key: '__proto__', value: { kvlistValue: { values: [{ key: 'polluted', value: { boolValue: true } }] } } },
      {
        key: 'x',
        value: {
          kvlistValue: {
            values: [
              {
                key: '__proto__',
                value: { kvlistValue: { values: [{ key: 'polluted', value: { boolValue: true } }] } },
              },
            ],
          },
        },
      },
    ]);
    const body = jsonRequest([span], 'proto-keys').replace(
      '"resourceSpans"',
      '"__proto__":{"polluted":true},"resourceSpans"',
    );
    const res = await post(tw.url, body, { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service: 'proto-keys' })).toBe(1);
  });
});

describe('when the store cannot take data', () => {
  it('answers 503 with Retry-After, and counts the retried batch in full', async () => {
    let failNext = true;
    const real = new SqliteStore({ path: `${tempDir('toolwatch-503-')}/toolwatch.db`, synchronous: 'NORMAL' });
    const flaky = new Proxy(real, {
      get(target, prop) {
        if (prop === 'write') {
          return (b: Parameters<Store['write']>[0]) => {
            if (!failNext) return target.write(b);
            failNext = false;
            return Promise.reject(new Error('disk full'));
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Store;
    const tw = await startToolwatch({ services: { store: flaky } });
    try {
      const body = jsonRequest([toolCallSpan('eee19b7ec3c1b180', '{}')], 'flaky');
      const first = await post(tw.url, body, { 'content-type': 'application/json' });
      expect(first.status).toBe(503);
      expect(first.headers.get('retry-after')).toBe('1');
      const second = await post(tw.url, body, { 'content-type': 'application/json' });
      expect(second.status).toBe(200);
      expect(metricValue(await tw.metrics(), 'toolwatch_tool_calls_total', { service: 'flaky' })).toBe(1);
    } finally {
      await tw.close();
    }
  });

  it('answers 503 with Retry-After while draining for shutdown', async () => {
    const tw = await startToolwatch();
    try {
      tw.services.draining = true;
      const res = await post(tw.url, '{}', { 'content-type': 'application/json' });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect((await fetch(`${tw.url}/readyz`)).status).toBe(503);
    } finally {
      tw.services.draining = false;
      await tw.close();
    }
  });
});
