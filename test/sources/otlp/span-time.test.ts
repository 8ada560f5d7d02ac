/**
 * Span times at decode (issue 8, High 4): a time toolwatch cannot store or show rejects its span
 * through partialSuccess in both decoders (thrown as SpanRejected at the span boundary); the rest of
 * the request is read. The end-to-end behaviour on both engines is in test/integration/unstorable-input.
 */
import pb from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { decodeJson, decodeProtobuf } from '../../../src/sources/otlp/decode.js';
import { MAX_FUTURE_MS, spanTimeProblem } from '../../../src/sources/otlp/span-time.js';

const NOW = Date.UTC(2026, 0, 1);
const TRACE = '6b8efff798038103d269b633813fc60c';
const NS = (ms: number) => BigInt(ms) * 1_000_000n;

function jsonBody(spans: { spanId: string; start: string; end: string; eventTime?: string }[]): string {
  return JSON.stringify({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: spans.map((s) => ({
              traceId: TRACE,
              spanId: s.spanId,
              name: 'chat',
              startTimeUnixNano: s.start,
              endTimeUnixNano: s.end,
              ...(s.eventTime ? { events: [{ name: 'e', timeUnixNano: s.eventTime }] } : {}),
            })),
          },
        ],
      },
    ],
  });
}

/** One ResourceSpans → ScopeSpans → Span per entry, times as fixed64 nanoseconds. */
function protoBody(spans: { spanId: string; start: bigint; end: bigint; eventTime?: bigint }[]): Uint8Array {
  const fixed64 = (w: pb.Writer, tag: number, v: bigint) => {
    w.uint32(tag).fixed64(pb.util.LongBits.from(v.toString()).toLong(true) as unknown as number);
  };
  const w = pb.Writer.create();
  w.uint32(10).fork().uint32(18).fork();
  for (const s of spans) {
    w.uint32(18).fork();
    w.uint32(10).bytes(Buffer.from(TRACE, 'hex'));
    w.uint32(18).bytes(Buffer.from(s.spanId, 'hex'));
    w.uint32(42).string('chat');
    fixed64(w, 57, s.start);
    fixed64(w, 65, s.end);
    if (s.eventTime !== undefined) {
      w.uint32(90).fork();
      fixed64(w, 9, s.eventTime);
      w.uint32(18).string('e');
      w.ldelim();
    }
    w.ldelim();
  }
  w.ldelim().ldelim();
  return w.finish();
}

describe('span times at decode', () => {
  it('rejects unrepresentable and far-future times, accepts unset and ordinary ones', () => {
    expect(spanTimeProblem(0, 0, [], NOW)).toBeNull();
    expect(spanTimeProblem(NOW - 1000, NOW, [NOW], NOW)).toBeNull();
    expect(spanTimeProblem(NOW, NOW + MAX_FUTURE_MS, [], NOW)).toBeNull();
    expect(spanTimeProblem(NOW, NOW + MAX_FUTURE_MS + 1, [], NOW)).toMatch(/out of range/);
    expect(spanTimeProblem(NOW, 1e19, [], undefined)).toMatch(/out of range/);
    expect(spanTimeProblem(NOW, NOW, [1e19], NOW)).toMatch(/event/);
    expect(spanTimeProblem(Number.NaN, NOW, [], NOW)).toMatch(/out of range/);
  });

  it('OTLP/JSON: the bad span is rejected with its reason, the good one read', () => {
    const now = String(NS(NOW));
    const body = jsonBody([
      { spanId: 'a1a1a1a1a1a1a1a1', start: now, end: '10000000000000000000000000' },
      { spanId: 'a1a1a1a1a1a1a1a2', start: now, end: now, eventTime: String(NS(NOW + 2 * MAX_FUTURE_MS)) },
      { spanId: 'a1a1a1a1a1a1a1a3', start: now, end: now },
    ]);
    const res = decodeJson(body, { maxDepth: 32, nowMs: NOW });
    expect(res).toMatchObject({ ok: true, rejectedSpans: 2, spans: [{ spanId: 'a1a1a1a1a1a1a1a3' }] });
    if (res.ok) expect(res.rejectReasons.join('; ')).toMatch(/startTimeUnixNano\/endTimeUnixNano out of range.*event/);
  });

  it('OTLP/protobuf: the same', () => {
    const body = protoBody([
      { spanId: 'b1b1b1b1b1b1b1b1', start: NS(NOW), end: NS(NOW + MAX_FUTURE_MS + 60_000) },
      { spanId: 'b1b1b1b1b1b1b1b2', start: NS(NOW), end: NS(NOW), eventTime: 2n ** 64n - 1n },
      { spanId: 'b1b1b1b1b1b1b1b3', start: NS(NOW), end: NS(NOW) },
    ]);
    const res = decodeProtobuf(body, { maxDepth: 32, nowMs: NOW });
    expect(res).toMatchObject({ ok: true, rejectedSpans: 2, spans: [{ spanId: 'b1b1b1b1b1b1b1b3' }] });
    // Without a clock only representability is checked: a day ahead is then fine.
    expect(decodeProtobuf(body, { maxDepth: 32 })).toMatchObject({ ok: true, rejectedSpans: 1 });
  });
});
