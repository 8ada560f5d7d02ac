import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import pb from 'protobufjs/minimal.js';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  decodeJson,
  decodeProtobuf,
  encodeExportResponse,
  encodeStatus,
  type DecodeResult,
} from '../../../src/sources/otlp/decode.js';
import type { Span } from '../../../src/model.js';
import { fixturePath } from '../../helpers/spans.js';

const FIXTURE = fixturePath('public/otlp-proto/trace.json');

function ok(res: DecodeResult): Extract<DecodeResult, { ok: true }> {
  if (!res.ok) throw new Error(`expected ok, got: ${res.message}`);
  return res;
}

/** Whole milliseconds exact, the rest as a fraction (span-time-ms.test.ts says why). */
function nsToMs(sec: number, nanos: number): number {
  const ns = BigInt(sec) * 1_000_000_000n + BigInt(nanos);
  return Number(ns / 1_000_000n) + Number(ns % 1_000_000n) / 1e6;
}

/**
 * An attribute object inherits no key: nothing on its prototype chain has a property (no
 * Object.prototype: `__proto__`, `toString`, `constructor` are plain data when present).
 */
function expectNoInheritedKeys(v: unknown): void {
  expect(typeof v).toBe('object');
  for (let p = Object.getPrototypeOf(v); p !== null; p = Object.getPrototypeOf(p)) {
    expect(p).not.toBe(Object.prototype);
    expect(Reflect.ownKeys(p)).toEqual([]);
  }
  expect('toString' in (v as object)).toBe(false);
}

/** Plain-object view of an attribute tree (attribute objects → ordinary objects) for toEqual. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return Array.from(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v))
      Object.defineProperty(out, k, { value: plain((v as Record<string, unknown>)[k]), enumerable: true });
    return out;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Real spans from the OpenTelemetry SDK, serialised by the OTel exporters' own serializers.

function makeSdkSpans(): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agent-svc', 'deployment.environment': 'test' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('toolwatch.test', '1.2.3');
  const parent = tracer.startSpan('invoke_agent planner', { kind: SpanKind.INTERNAL, startTime: [1700000000, 0] });
  const child = tracer.startSpan(
    'chat gpt-4o',
    { kind: SpanKind.CLIENT, startTime: [1700000000, 123456789] },
    trace.setSpan(ROOT_CONTEXT, parent),
  );
  child.setAttributes({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 1234,
    'neg.int': -42,
    'big.int': 2 ** 53,
    temp: 0.25,
    stream: true,
    'gen_ai.response.finish_reasons': ['tool_calls', 'stop'],
    ints: [1, 2, 3],
    bools: [true, false],
  } satisfies Attributes);
  child.addEvent('gen_ai.choice', { index: 0, finish_reason: 'tool_calls' }, [1700000001, 500000000]);
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited' });
  child.end([1700000002, 250000000]);
  parent.end([1700000003, 0]);
  const spans = exporter.getFinishedSpans();
  // AnyValue shapes the SDK's attribute API does not accept, but the OTLP serializers do.
  const attrs = spans.find((s) => s.name === 'chat gpt-4o')!.attributes as Record<string, unknown>;
  attrs['gen_ai.tool.definitions'] = {
    name: 'get_weather',
    parameters: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
    strict: false,
    version: 2,
    ratio: 1.5,
  };
  attrs['mixed'] = ['a', 1, 2.5, false, ['nested'], { k: 'v' }];
  attrs['blob'] = new Uint8Array([0, 1, 2, 254, 255]);
  return spans;
}

function expectedChildAttributes(): unknown {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 1234,
    'neg.int': -42,
    'big.int': 2 ** 53,
    temp: 0.25,
    stream: true,
    'gen_ai.response.finish_reasons': ['tool_calls', 'stop'],
    ints: [1, 2, 3],
    bools: [true, false],
    'gen_ai.tool.definitions': {
      name: 'get_weather',
      parameters: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
      strict: false,
      version: 2,
      ratio: 1.5,
    },
    mixed: ['a', 1, 2.5, false, ['nested'], { k: 'v' }],
    blob: [0, 1, 2, 254, 255],
  };
}

function checkSdkDecode(spans: Span[], sdk: ReadableSpan[]): void {
  expect(spans).toHaveLength(2);
  const sdkChild = sdk.find((s) => s.name === 'chat gpt-4o')!;
  const sdkParent = sdk.find((s) => s.name === 'invoke_agent planner')!;
  const child = spans.find((s) => s.name === 'chat gpt-4o')!;
  const parent = spans.find((s) => s.name === 'invoke_agent planner')!;

  expect(child.traceId).toBe(sdkChild.spanContext().traceId);
  expect(child.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(child.spanId).toBe(sdkChild.spanContext().spanId);
  expect(child.parentSpanId).toBe(sdkParent.spanContext().spanId);
  expect(parent.parentSpanId).toBe('');
  expect(child.kind).toBe(3);
  expect(parent.kind).toBe(1);
  expect(child.startTimeMs).toBe(nsToMs(1700000000, 123456789));
  expect(child.endTimeMs).toBe(nsToMs(1700000002, 250000000));
  expect(parent.startTimeMs).toBe(1700000000000);
  expect(child.statusCode).toBe(2);
  expect(child.statusMessage).toBe('rate limited');
  expect(parent.statusCode).toBe(0);
  expect(child.service).toBe('agent-svc');
  expect(child.scope).toBe('toolwatch.test');
  expect(child.scopeVersion).toBe('1.2.3');
  expectNoInheritedKeys(child.attributes);
  expectNoInheritedKeys(child.attributes['gen_ai.tool.definitions']);
  expect(child.attributes['blob']).toBeInstanceOf(Uint8Array);
  expect(plain(child.attributes)).toEqual(expectedChildAttributes());
  expect(child.events).toHaveLength(1);
  expect(child.events[0]!.name).toBe('gen_ai.choice');
  expect(child.events[0]!.timeMs).toBe(nsToMs(1700000001, 500000000));
  expect(plain(child.events[0]!.attributes)).toEqual({ index: 0, finish_reason: 'tool_calls' });
  expectNoInheritedKeys(child.events[0]!.attributes);
  expect(parent.events).toEqual([]);
}

describe('decodeProtobuf: real OTel SDK payloads', () => {
  it('decodes every span field and attribute type exactly', () => {
    const sdk = makeSdkSpans();
    const bytes = ProtobufTraceSerializer.serializeRequest(sdk)!;
    const res = ok(decodeProtobuf(bytes));
    expect(res.rejectedSpans).toBe(0);
    expect(res.rejectReasons).toEqual([]);
    checkSdkDecode(res.spans, sdk);
  });

  it('accepts a plain Uint8Array that is a view into a larger buffer', () => {
    const sdk = makeSdkSpans();
    const bytes = ProtobufTraceSerializer.serializeRequest(sdk)!;
    const big = new Uint8Array(bytes.length + 10);
    big.set(bytes, 5);
    checkSdkDecode(ok(decodeProtobuf(big.subarray(5, 5 + bytes.length))).spans, sdk);
  });

  it('an empty body is an empty request', () => {
    expect(decodeProtobuf(new Uint8Array(0))).toEqual({ ok: true, spans: [], rejectedSpans: 0, rejectReasons: [] });
  });

  it('truncated or garbage bytes → ok:false, never a throw', () => {
    const bytes = ProtobufTraceSerializer.serializeRequest(makeSdkSpans())!;
    for (const cut of [1, 3, 17, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const res = decodeProtobuf(bytes.subarray(0, cut));
      expect(res.ok).toBe(false);
      if (!res.ok) expect(res.message).toMatch(/protobuf/);
    }
    const garbage = [
      new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
      new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
      new Uint8Array([0x0b, 0x00]), // wire type 3 (group)
      new Uint8Array([0x00]), // field number 0
      Buffer.from('{"resourceSpans":[]}'),
    ];
    for (const g of garbage) expect(decodeProtobuf(g).ok).toBe(false);
    // random noise must never throw
    let seed = 7;
    for (let i = 0; i < 200; i++) {
      const n = new Uint8Array(64);
      for (let j = 0; j < n.length; j++) n[j] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
      expect(() => decodeProtobuf(n)).not.toThrow();
    }
  });
});

describe('decodeJson: real OTel SDK payloads', () => {
  it('decodes the JSON serializer output exactly like protobuf', () => {
    const sdk = makeSdkSpans();
    const json = ok(decodeJson(JsonTraceSerializer.serializeRequest(sdk)!));
    expect(json.rejectedSpans).toBe(0);
    checkSdkDecode(json.spans, sdk);
    const proto = ok(decodeProtobuf(ProtobufTraceSerializer.serializeRequest(sdk)!));
    expect(plain(json.spans)).toEqual(plain(proto.spans));
  });
});

// ---------------------------------------------------------------------------------------------
// The reference OTLP/JSON fixture.

function fixture(): any {
  return JSON.parse(readFileSync(FIXTURE, 'utf8'));
}

describe('decodeJson: reference fixture', () => {
  it('decodes the fixture: upper-case hex ids → lower-case, nanos as numbers, integer kind', () => {
    const res = ok(decodeJson(readFileSync(FIXTURE)));
    expect(res.rejectedSpans).toBe(0);
    expect(res.spans).toHaveLength(1);
    const s = res.spans[0]!;
    expect(s.traceId).toBe('5b8efff798038103d269b633813fc60c');
    expect(s.spanId).toBe('eee19b7ec3c1b174');
    expect(s.parentSpanId).toBe('eee19b7ec3c1b173');
    expect(s.name).toBe("I'm a server span");
    expect(s.kind).toBe(2);
    expect(s.startTimeMs).toBe(1544712660000);
    expect(s.endTimeMs).toBe(1544712661000);
    expect(s.statusCode).toBe(0);
    expect(s.statusMessage).toBe('');
    expect(s.service).toBe('my.service');
    expect(s.scope).toBe('my.library');
    expect(s.scopeVersion).toBe('1.0.0');
    expect(plain(s.attributes)).toEqual({ 'my.span.attr': 'some value' });
    expectNoInheritedKeys(s.attributes);
    expect(s.events).toEqual([]);
  });

  it('int64 as decimal string or number; string enums; unknown fields ignored', () => {
    const req = fixture();
    req.extra = { whatever: [1, 2] };
    req.resourceSpans[0].unknownField = 'x';
    req.resourceSpans[0].scopeSpans[0].unknown = true;
    const sp = req.resourceSpans[0].scopeSpans[0].spans[0];
    sp.startTimeUnixNano = '1544712660000000000';
    sp.endTimeUnixNano = 1544712661500000000;
    sp.kind = 'SPAN_KIND_CLIENT';
    sp.status = { code: 'STATUS_CODE_ERROR', message: 'bad', other: 1 };
    sp.flags = 257;
    sp.links = [{ traceId: 'zz' }];
    sp.attributes.push(
      { key: 'n.str', value: { intValue: '42' } },
      { key: 'n.num', value: { intValue: 42 } },
      { key: 'n.neg', value: { intValue: '-7' } },
      { key: 'd', value: { doubleValue: 1.5 } },
      { key: 'd.nan', value: { doubleValue: 'NaN' } },
      { key: 'b', value: { boolValue: false } },
      { key: 'bytes', value: { bytesValue: 'AAEC/w==' } },
      { key: 'empty', value: {} },
      { key: 'unknown.only', value: { futureValue: 1 } },
      { key: 'snake', value: { string_value: 's' } },
      { key: 'dup', value: { stringValue: 'first' } },
      { key: 'dup', value: { stringValue: 'second' } },
    );
    sp.events = [{ timeUnixNano: '1544712660500000000', name: 'ev', attributes: [], droppedAttributesCount: 0 }];
    const s = ok(decodeJson(JSON.stringify(req))).spans[0]!;
    expect(s.startTimeMs).toBe(1544712660000);
    expect(s.endTimeMs).toBe(1544712661500);
    expect(s.kind).toBe(3);
    expect(s.statusCode).toBe(2);
    expect(s.statusMessage).toBe('bad');
    expect(s.events).toEqual([{ name: 'ev', timeMs: 1544712660500, attributes: Object.create(null) }]);
    expect(plain(s.attributes)).toEqual({
      'my.span.attr': 'some value',
      'n.str': 42,
      'n.num': 42,
      'n.neg': -7,
      d: 1.5,
      'd.nan': NaN,
      b: false,
      bytes: [0, 1, 2, 255],
      empty: null,
      'unknown.only': null,
      snake: 's',
      dup: 'second',
    });
  });

  it('base64 or wrong-length ids reject only that span (partial success)', () => {
    const req = fixture();
    const spans = req.resourceSpans[0].scopeSpans[0].spans;
    const good = spans[0];
    spans.push(
      { ...good, traceId: 'W47/95gDgQPSabYzgT/GDA==' }, // base64 of the trace id
      { ...good, spanId: '7uGbfsPBsXQ=' },
      { ...good, spanId: 'EEE19B7EC3C1B1' },
      { ...good, parentSpanId: 'xyz' },
      { ...good, traceId: '00000000000000000000000000000000' },
      { ...good, spanId: 'aaaaaaaaaaaaaaab', parentSpanId: '' },
    );
    const res = ok(decodeJson(JSON.stringify(req)));
    expect(res.spans.map((s) => s.spanId)).toEqual(['eee19b7ec3c1b174', 'aaaaaaaaaaaaaaab']);
    expect(res.spans[1]!.parentSpanId).toBe('');
    expect(res.rejectedSpans).toBe(5);
    expect(res.rejectReasons).toContain('traceId must be 32 hex characters (OTLP/JSON uses hex, not base64)');
    expect(res.rejectReasons.some((r) => r.startsWith('spanId must be 16 hex'))).toBe(true);
    expect(res.rejectReasons.length).toBeLessThanOrEqual(5);
  });

  it('keeps at most 5 distinct reasons', () => {
    const req = fixture();
    const spans = req.resourceSpans[0].scopeSpans[0].spans;
    const good = spans[0];
    spans.push(
      { ...good, traceId: 'x' },
      { ...good, traceId: 'y' },
      { ...good, spanId: 'x' },
      { ...good, parentSpanId: 'x' },
      { ...good, traceId: '0'.repeat(32) },
      { ...good, spanId: '0'.repeat(16) },
      { ...good, startTimeUnixNano: 'soon' },
      7,
    );
    const res = ok(decodeJson(JSON.stringify(req)));
    expect(res.spans).toHaveLength(1);
    expect(res.rejectedSpans).toBe(8);
    expect(res.rejectReasons).toHaveLength(5);
    expect(new Set(res.rejectReasons).size).toBe(5);
  });

  it('malformed payloads → ok:false', () => {
    for (const body of [
      '',
      'nope',
      '[]',
      '"x"',
      '42',
      'null',
      '{"resourceSpans":{}}',
      '{"resourceSpans":[1]}',
      '{"resourceSpans":[{"scopeSpans":"x"}]}',
      '{"resourceSpans":[{"scopeSpans":[{"spans":{}}]}]}',
    ]) {
      const res = decodeJson(body);
      expect(res.ok, body).toBe(false);
    }
    expect(decodeJson(new Uint8Array([0xff, 0xfe, 0x00])).ok).toBe(false);
  });

  it('an empty request succeeds', () => {
    expect(decodeJson('{}')).toEqual({ ok: true, spans: [], rejectedSpans: 0, rejectReasons: [] });
    expect(ok(decodeJson('{"resourceSpans":[]}')).spans).toEqual([]);
    expect(ok(decodeJson(new TextEncoder().encode('{"resourceSpans":[{"scopeSpans":[{}]}]}'))).spans).toEqual([]);
  });

  it('defaults: no resource → unknown_service, no scope → ""', () => {
    const req = fixture();
    delete req.resourceSpans[0].resource;
    delete req.resourceSpans[0].scopeSpans[0].scope;
    const s = ok(decodeJson(JSON.stringify(req))).spans[0]!;
    expect(s.service).toBe('unknown_service');
    expect(s.scope).toBe('');
    expect(s.scopeVersion).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------
// Hand-built protobuf (for shapes the SDK never produces).

type W = pb.Writer;
const hex = (h: string) => Buffer.from(h, 'hex');

function writeKvString(w: W, field: number, key: string, value: string): void {
  w.uint32((field << 3) | 2).fork();
  w.uint32(10).string(key);
  w.uint32(18).fork().uint32(10).string(value).ldelim();
  w.ldelim();
}

interface PSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  parent?: Uint8Array;
  name?: string;
  attrs?: (w: W) => void;
}

function buildRequest(spans: PSpan[], opts: { service?: string; resourceLast?: boolean } = {}): Uint8Array {
  const w = pb.Writer.create();
  w.uint32(10).fork(); // ResourceSpans
  const writeResource = () => {
    if (opts.service === undefined) return;
    w.uint32(10).fork();
    writeKvString(w, 1, 'host.name', 'h');
    writeKvString(w, 1, 'service.name', opts.service);
    w.ldelim();
  };
  if (!opts.resourceLast) writeResource();
  w.uint32(18).fork(); // ScopeSpans
  for (const s of spans) {
    w.uint32(18).fork();
    if (s.traceId) w.uint32(10).bytes(s.traceId);
    if (s.spanId) w.uint32(18).bytes(s.spanId);
    if (s.parent) w.uint32(34).bytes(s.parent);
    w.uint32(42).string(s.name ?? 'span');
    w.uint32(133).fixed32(1); // flags
    w.uint32(57).fixed64(1_000_000); // start
    s.attrs?.(w);
    w.uint32(8 * 99 + 2).string('unknown field'); // unknown field 99
    w.ldelim();
  }
  w.uint32(10).fork().uint32(10).string('late.scope').uint32(18).string('0.9').ldelim(); // scope after the spans
  w.ldelim();
  if (opts.resourceLast) writeResource();
  w.ldelim();
  return w.finish();
}

const T1 = hex('0af7651916cd43dd8448eb211c80319c');
const S1 = hex('b7ad6b7169203331');

describe('decodeProtobuf: hand-built payloads', () => {
  it('field order does not matter; unknown fields skipped', () => {
    const res = ok(decodeProtobuf(buildRequest([{ traceId: T1, spanId: S1 }], { service: 'svc', resourceLast: true })));
    expect(res.spans).toHaveLength(1);
    expect(res.spans[0]).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      parentSpanId: '',
      service: 'svc',
      scope: 'late.scope',
      scopeVersion: '0.9',
      startTimeMs: 1,
    });
  });

  it('bad ids reject the span', () => {
    const res = ok(
      decodeProtobuf(
        buildRequest([
          { traceId: T1, spanId: S1, name: 'good' },
          { traceId: T1.subarray(0, 8), spanId: S1 },
          { traceId: T1, spanId: new Uint8Array(8) },
          { spanId: S1 },
          { traceId: T1, spanId: S1, parent: new Uint8Array(3) },
          { traceId: new Uint8Array(16), spanId: S1 },
          { traceId: T1, spanId: S1, parent: hex('00f067aa0ba902b7'), name: 'child' },
        ]),
      ),
    );
    expect(res.spans.map((s) => [s.name, s.parentSpanId])).toEqual([
      ['good', ''],
      ['child', '00f067aa0ba902b7'],
    ]);
    expect(res.spans[0]!.service).toBe('unknown_service');
    expect(res.rejectedSpans).toBe(5);
    expect(res.rejectReasons.length).toBeGreaterThan(2);
  });

  it('int64 extremes and duplicate keys', () => {
    const attrs = (w: W) => {
      const kvInt = (key: string, v: number | string) => {
        w.uint32(74)
          .fork()
          .uint32(10)
          .string(key)
          .uint32(18)
          .fork()
          .uint32(24)
          .int64(v as number)
          .ldelim()
          .ldelim();
      };
      kvInt('zero', 0);
      kvInt('neg', -1);
      kvInt('min', '-9223372036854775808');
      kvInt('big', 2 ** 62);
      kvInt('u32', 4294967295);
      writeKvString(w, 9, 'dup', 'a');
      writeKvString(w, 9, 'dup', 'b');
    };
    const s = ok(decodeProtobuf(buildRequest([{ traceId: T1, spanId: S1, attrs }]))).spans[0]!;
    expect(plain(s.attributes)).toEqual({ zero: 0, neg: -1, min: -(2 ** 63), big: 2 ** 62, u32: 4294967295, dup: 'b' });
  });
});

describe('decodeProtobuf: KeyValue layouts off the direct path (key then one short value)', () => {
  const long = 'x'.repeat(200); // a 2-byte length prefix
  const kv = (w: W, write: (w: W) => void) => {
    w.uint32(74).fork();
    write(w);
    w.ldelim();
  };
  const str = (w: W, field: number, v: string) => w.uint32((field << 3) | 2).string(v);
  const anyStr = (w: W, v: string) => w.uint32(18).fork().uint32(10).string(v).ldelim();

  it('decode to the same values as the usual layout', () => {
    const attrs = (w: W) => {
      writeKvString(w, 9, 'usual', 'v');
      kv(w, (w) => str(anyStr(w, 'value first'), 1, 'reversed'));
      kv(w, (w) =>
        anyStr(
          str(w, 1, 'extra.field')
            .uint32(8 * 7)
            .uint32(5),
          'after an unknown field',
        ),
      );
      kv(w, (w) => anyStr(str(w, 1, long), 'long key'));
      kv(w, (w) => anyStr(str(w, 1, 'long.value'), long));
      kv(w, (w) => str(w, 1, 'string.then.int').uint32(18).fork().uint32(10).string('s').uint32(24).int64(7).ldelim());
      kv(w, (w) => str(w, 1, 'two.strings').uint32(18).fork().uint32(10).string('a').uint32(10).string('b').ldelim());
      kv(w, () => undefined); // empty KeyValue: key '' → null
    };
    const s = ok(decodeProtobuf(buildRequest([{ traceId: T1, spanId: S1, attrs }]))).spans[0]!;
    expect(plain(s.attributes)).toEqual({
      usual: 'v',
      '': null,
      reversed: 'value first',
      'extra.field': 'after an unknown field',
      [long]: 'long key',
      'long.value': long,
      'string.then.int': 7,
      'two.strings': 'b',
    });
  });

  it('a key running past its KeyValue is a malformed request, not a misread attribute', () => {
    const attrs = (w: W) => {
      // KeyValue of 4 bytes whose key claims 10: the key's bytes run into the next field.
      w.uint32(74).uint32(4).uint32(10).uint32(10).uint32(18).uint32(0);
      w.uint32(42).string('name.after');
    };
    const res = decodeProtobuf(buildRequest([{ traceId: T1, spanId: S1, attrs }]));
    expect(res.ok).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Deep nesting.

const DEEP = 100_000;

function deepProtobufAttr(kind: 'array' | 'kvlist'): (w: W) => void {
  return (w) => {
    w.uint32(74).fork().uint32(10).string('deep').uint32(18).fork(); // KeyValue { key, value: AnyValue
    for (let i = 0; i < DEEP; i++) {
      if (kind === 'array')
        w.uint32(42).fork().uint32(10).fork(); // array_value { values: AnyValue
      else w.uint32(50).fork().uint32(10).fork().uint32(10).string('k').uint32(18).fork(); // kvlist { KeyValue { key, value
    }
    w.uint32(10).string('bottom');
    for (let i = 0; i < DEEP; i++) {
      w.ldelim().ldelim();
      if (kind === 'kvlist') w.ldelim();
    }
    w.ldelim().ldelim();
  };
}

describe('decodeProtobuf: long values that repeat (read once per distinct value)', () => {
  const span = (i: number, value: string): PSpan => ({
    traceId: hex('0102030405060708090a0b0c0d0e0f10'),
    spanId: hex(`00000000000000${(i + 1).toString(16).padStart(2, '0')}`),
    attrs: (w) => writeKvString(w, 9, 'gen_ai.tool.definitions', value),
  });
  const defs = JSON.stringify([{ type: 'function', name: 'lookup', parameters: { type: 'object' } }]).padEnd(2000, ' ');
  // Same length, same bytes at the sampled places, one byte apart elsewhere: must not be taken for one another.
  const twin = `${defs.slice(0, 101)}X${defs.slice(102)}`;
  const long = 'ü'.repeat(40_000); // past the kept length: decoded each time

  it('every sighting of a value decodes to it, its twins and the values between them included', () => {
    const values = [defs, defs, twin, defs, twin, twin, long, defs, long, 'short', defs];
    for (let round = 0; round < 3; round++) {
      const res = ok(decodeProtobuf(buildRequest(values.map((v, i) => span(i, v)))));
      expect(res.spans.map((sp) => sp.attributes['gen_ai.tool.definitions'])).toEqual(values);
    }
  });

  it('many distinct values of one length between repeats of another: each decodes to itself', () => {
    const distinct = Array.from({ length: 300 }, (_, i) => `${i}`.padStart(6, '0').padEnd(900, 'm'));
    const values = distinct.flatMap((d) => [defs, d]);
    const res = ok(decodeProtobuf(buildRequest(values.map((v, i) => span(i % 200, v)))));
    expect(res.spans.map((sp) => sp.attributes['gen_ai.tool.definitions'])).toEqual(values);
  });
});

describe('deep nesting', () => {
  for (const kind of ['array', 'kvlist'] as const) {
    it(`protobuf: ${DEEP}-deep ${kind} → span rejected at the depth limit (no recursion past it), no throw`, () => {
      const bytes = buildRequest([
        { traceId: T1, spanId: S1, name: 'deep', attrs: deepProtobufAttr(kind) },
        { traceId: T1, spanId: hex('00f067aa0ba902b7'), name: 'fine' },
      ]);
      const res = ok(decodeProtobuf(bytes));
      expect(res.spans.map((s) => s.name)).toEqual(['fine']);
      expect(res.rejectedSpans).toBe(1);
      expect(res.rejectReasons[0]).toMatch(/nested deeper than 32/);
    });

    it(`json: ${DEEP}-deep ${kind} → span rejected at the depth limit (no recursion past it), no throw`, () => {
      const open = kind === 'array' ? '{"arrayValue":{"values":[' : '{"kvlistValue":{"values":[{"key":"k","value":';
      const close = kind === 'array' ? ']}}' : '}]}}';
      const value = open.repeat(DEEP) + '{"stringValue":"bottom"}' + close.repeat(DEEP);
      const req = fixture();
      const spans = req.resourceSpans[0].scopeSpans[0].spans;
      spans.push({
        ...spans[0],
        spanId: '00f067aa0ba902b7',
        name: 'deep',
        attributes: [{ key: 'deep', value: '@@DEEP@@' }],
      });
      const body = JSON.stringify(req).replace('"@@DEEP@@"', value);
      const res = ok(decodeJson(body));
      expect(res.spans.map((s) => s.name)).toEqual(["I'm a server span"]);
      expect(res.rejectedSpans).toBe(1);
      expect(res.rejectReasons[0]).toMatch(/nested deeper than 32/);
    });
  }

  it('maxDepth is configurable; exactly maxDepth levels pass', () => {
    // attribute value at level 1 holding an array (level 2 values) holding an array (level 3 values)
    const nested = { arrayValue: { values: [{ arrayValue: { values: [{ stringValue: 'x' }] } }] } };
    const req = fixture();
    req.resourceSpans[0].scopeSpans[0].spans[0].attributes = [{ key: 'n', value: nested }];
    const body = JSON.stringify(req);
    expect(ok(decodeJson(body, { maxDepth: 3 })).spans).toHaveLength(1);
    expect(ok(decodeJson(body, { maxDepth: 2 })).rejectedSpans).toBe(1);
    const attrs = (w: W) => {
      w.uint32(74).fork().uint32(10).string('n').uint32(18).fork();
      w.uint32(42).fork().uint32(10).fork().uint32(42).fork().uint32(10).fork().uint32(10).string('x');
      w.ldelim().ldelim().ldelim().ldelim().ldelim().ldelim();
    };
    const bytes = buildRequest([{ traceId: T1, spanId: S1, attrs }]);
    expect(plain(ok(decodeProtobuf(bytes, { maxDepth: 3 })).spans[0]!.attributes)).toEqual({ n: [['x']] });
    expect(ok(decodeProtobuf(bytes, { maxDepth: 2 })).rejectedSpans).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Prototype pollution.

function expectPrototypeUntouched(): void {
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
}

describe('__proto__ keys are plain data', () => {
  it('protobuf', () => {
    const attrs = (w: W) => {
      // span attribute "__proto__" = kvlist { "__proto__": kvlist { polluted: "yes" }, polluted: "yes" }
      w.uint32(74).fork().uint32(10).string('__proto__').uint32(18).fork();
      w.uint32(50).fork();
      w.uint32(10).fork().uint32(10).string('__proto__').uint32(18).fork().uint32(50).fork();
      writeKvString(w, 1, 'polluted', 'yes');
      w.ldelim().ldelim().ldelim();
      writeKvString(w, 1, 'polluted', 'yes');
      w.ldelim();
      w.ldelim().ldelim();
      writeKvString(w, 9, 'constructor', 'c');
    };
    const s = ok(decodeProtobuf(buildRequest([{ traceId: T1, spanId: S1, attrs }]))).spans[0]!;
    expectPrototypeUntouched();
    expectNoInheritedKeys(s.attributes);
    expect(Object.keys(s.attributes)).toEqual(['__proto__', 'constructor']);
    const inner = s.attributes['__proto__'] as Record<string, unknown>;
    expectNoInheritedKeys(inner);
    expect(Object.keys(inner)).toEqual(['__proto__', 'polluted']);
    expect(plain(inner['__proto__'])).toEqual({ polluted: 'yes' });
    expect(s.attributes['constructor']).toBe('c');
  });

  it('json', () => {
    const req = fixture();
    const proto = {
      kvlistValue: {
        values: [
          {
            key: '__proto__',
            value: { kvlistValue: { values: [{ key: 'polluted', value: { stringValue: 'yes' } }] } },
          },
        ],
      },
    };
    req.resourceSpans[0].scopeSpans[0].spans[0].attributes = [
      { key: '__proto__', value: proto },
      { key: 'plain', value: { stringValue: 'p' } },
    ];
    req.resourceSpans[0].scopeSpans[0].spans[0].events = [
      { timeUnixNano: 1, name: 'e', attributes: [{ key: '__proto__', value: { stringValue: 'ev' } }] },
    ];
    // JSON.stringify of a literal with "__proto__" inside kvlist keys is fine: the key is a string value.
    const s = ok(decodeJson(JSON.stringify(req))).spans[0]!;
    expectPrototypeUntouched();
    expect(Object.keys(s.attributes)).toEqual(['__proto__', 'plain']);
    const inner = s.attributes['__proto__'] as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(inner, '__proto__')!.value).toBeTruthy();
    expect(plain(inner['__proto__'])).toEqual({ polluted: 'yes' });
    expect(s.events[0]!.attributes['__proto__']).toBe('ev');
  });
});

// ---------------------------------------------------------------------------------------------
// Response encoders.

function readPartial(buf: Uint8Array): { rejected?: number; message?: string; outerTags: number[] } {
  const r = pb.Reader.create(buf);
  const out: { rejected?: number; message?: string; outerTags: number[] } = { outerTags: [] };
  while (r.pos < r.len) {
    const tag = r.uint32();
    out.outerTags.push(tag);
    if (tag !== 10) {
      r.skipType(tag & 7);
      continue;
    }
    const end = r.uint32() + r.pos;
    while (r.pos < end) {
      const t = r.uint32();
      if (t === 8) out.rejected = Number(r.int64());
      else if (t === 18) out.message = r.string();
      else r.skipType(t & 7);
    }
  }
  return out;
}

describe('response encoders', () => {
  it('ExportTraceServiceResponse, protobuf', () => {
    expect(encodeExportResponse('protobuf').length).toBe(0);
    const buf = encodeExportResponse('protobuf', {
      rejectedSpans: 3,
      errorMessage: 'traceId must be 32 hex characters',
    });
    expect(Buffer.isBuffer(buf)).toBe(true);
    expect(readPartial(buf)).toEqual({ rejected: 3, message: 'traceId must be 32 hex characters', outerTags: [10] });
    // the OTel JS exporter's own response parser agrees
    expect(ProtobufTraceSerializer.deserializeResponse(buf)).toEqual({
      partialSuccess: { rejectedSpans: 3, errorMessage: 'traceId must be 32 hex characters' },
    });
  });

  it('ExportTraceServiceResponse, json', () => {
    expect(encodeExportResponse('json').toString()).toBe('{}');
    const buf = encodeExportResponse('json', { rejectedSpans: 2, errorMessage: 'bad "ids"' });
    expect(JSON.parse(buf.toString())).toEqual({ partialSuccess: { rejectedSpans: '2', errorMessage: 'bad "ids"' } });
    const parsed = JsonTraceSerializer.deserializeResponse(buf);
    expect(Number(parsed.partialSuccess?.rejectedSpans)).toBe(2);
  });

  it('google.rpc.Status', () => {
    const buf = encodeStatus('protobuf', 3, 'malformed OTLP protobuf');
    const r = pb.Reader.create(buf);
    const got: Record<number, unknown> = {};
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag === 8) got[1] = r.int32();
      else if (tag === 18) got[2] = r.string();
      else r.skipType(tag & 7);
    }
    expect(got).toEqual({ 1: 3, 2: 'malformed OTLP protobuf' });
    expect(JSON.parse(encodeStatus('json', 3, 'bad').toString())).toEqual({ code: 3, message: 'bad' });
  });
});
