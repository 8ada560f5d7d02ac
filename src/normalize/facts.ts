/** The parts of SpanFacts every reader fills the same way. */
import type { Span, SpanFacts, ToolExecution } from '../model.js';
import { spanStatus } from './exec-status.js';
import { str, toToolArgs, resultText } from '../util/values.js';

export function baseFacts(span: Span, dialect: string, role: SpanFacts['role']): SpanFacts {
  const f: SpanFacts = {
    dialect,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    service: span.service,
    startTimeMs: span.startTimeMs,
    endTimeMs: span.endTimeMs,
    role,
    proposals: [],
    replays: [],
  };
  if (span.statusCode === 2) f.error = str(span.attributes, 'error.type') ?? (span.statusMessage || 'error');
  return f;
}

/**
 * A tool execution; failed on span status ERROR, an `error.type` or a failing HTTP/gRPC status on the
 * span, classified by exec-status.ts (HTTP client children are added later, in the pipeline).
 */
export function execution(
  span: Span,
  name: string,
  callId: string | undefined,
  args: unknown,
  result: unknown,
): ToolExecution {
  const s = spanStatus(span);
  const e: ToolExecution = {
    name,
    args: toToolArgs(args),
    status: s.status,
    durationMs: Math.max(0, span.endTimeMs - span.startTimeMs),
  };
  if (callId !== undefined) e.callId = callId;
  if (s.errorType !== undefined) e.errorType = s.errorType;
  if (s.httpStatus !== undefined) e.httpStatus = s.httpStatus;
  const r = resultText(result);
  if (r !== undefined) e.result = r;
  return e;
}

type LazyKey = 'replays' | 'userMessage';
/** A lazy fact's slot: its compute function until the first read, then its value. */
type Slot<K extends LazyKey> = SpanFacts[K] | (() => SpanFacts[K]);
interface LazySlots {
  replays: Slot<'replays'>;
  userMessage: Slot<'userMessage'>;
  /** Which of the two are this object's accessors (bit 1: replays, bit 2: userMessage). */
  installed: number;
}

/** Where a facts object keeps its lazy facts: a non-enumerable own property, so spreads, keys and comparisons see only the facts. */
const SLOTS = Symbol('lazy facts');
const BIT: Record<LazyKey, number> = { replays: 1, userMessage: 2 };

function slotsOf(f: SpanFacts): LazySlots {
  return (f as unknown as { [SLOTS]: LazySlots })[SLOTS];
}

function settled<K extends LazyKey>(f: SpanFacts, key: K): SpanFacts[K] {
  const slots = slotsOf(f);
  const v = slots[key] as Slot<K>;
  if (typeof v !== 'function') return v;
  const value = v();
  (slots[key] as Slot<K>) = value;
  return value;
}

// One getter/setter pair per key for every facts object: objects given the same accessors share
// one hidden class and stay in V8's fast mode (an accessor made per object, or a property turned
// from a value into an accessor, moves the object to a slow dictionary every later read pays for).
function accessor<K extends LazyKey>(key: K): PropertyDescriptor {
  return {
    get(this: SpanFacts) {
      return settled(this, key);
    },
    set(this: SpanFacts, v: SpanFacts[K]) {
      (slotsOf(this) as Record<K, unknown>)[key] = v;
    },
    enumerable: true,
    configurable: true,
  };
}

const ACCESSORS: Record<LazyKey, PropertyDescriptor> = {
  replays: accessor('replays'),
  userMessage: accessor('userMessage'),
};

/**
 * baseFacts for a reader that will define `replays` lazily (lazyFact): the same facts, with
 * `replays` an accessor from the start, so making it lazy later keeps the object in fast mode.
 */
export function lazyBaseFacts(span: Span, dialect: string, role: SpanFacts['role']): SpanFacts {
  const f = {
    dialect,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    service: span.service,
    startTimeMs: span.startTimeMs,
    endTimeMs: span.endTimeMs,
    role,
    proposals: [],
  } as unknown as SpanFacts;
  const slots: LazySlots = { replays: [], userMessage: undefined, installed: BIT.replays };
  Object.defineProperty(f, SLOTS, { value: slots });
  Object.defineProperty(f, 'replays', ACCESSORS.replays);
  if (span.statusCode === 2) f.error = str(span.attributes, 'error.type') ?? (span.statusMessage || 'error');
  return f;
}

/**
 * Defines a fact that is computed on first read. Input history (the whole conversation, replayed
 * on every model span) is the costliest attribute to parse and is needed only for the few sampled
 * trajectories, never to count calls — so readers define `replays` and `userMessage` lazily.
 * Assigning the property replaces the computation with the plain value.
 */
export function lazyFact<K extends LazyKey>(f: SpanFacts, key: K, compute: () => SpanFacts[K]): void {
  let slots = slotsOf(f);
  if (slots === undefined) {
    slots = { replays: [], userMessage: undefined, installed: 0 };
    Object.defineProperty(f, SLOTS, { value: slots });
  }
  const bit = BIT[key];
  if ((slots.installed & bit) === 0) {
    // A fact already set as a plain value (a reader's baseFacts `replays`) is redefined: correct,
    // though that object leaves fast mode; the hot readers start from lazyBaseFacts instead.
    slots.installed |= bit;
    Object.defineProperty(f, key, ACCESSORS[key]);
  }
  (slots[key] as Slot<K>) = compute;
}
