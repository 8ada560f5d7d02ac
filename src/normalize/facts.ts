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

type LazyKey = 'replays' | 'userMessage' | 'outputText';
/** A lazy fact's slot: its compute function until the first read, then its value. */
type Slot<K extends LazyKey> = SpanFacts[K] | (() => SpanFacts[K]);
interface LazySlots {
  replays: Slot<'replays'>;
  userMessage: Slot<'userMessage'>;
  outputText: Slot<'outputText'>;
  /** Which of the three are this object's accessors (bit 1: replays, bit 2: userMessage, bit 4: outputText). */
  installed: number;
}

/** Where a plain facts object made lazy keeps its lazy facts: a non-enumerable own property, so spreads, keys and comparisons see only the facts. */
const SLOTS = Symbol('lazy facts');
const BIT: Record<LazyKey, number> = { replays: 1, userMessage: 2, outputText: 4 };

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
  outputText: accessor('outputText'),
};

/**
 * The facts of a model span whose history is read lazily (lazyBaseFacts). Its lazy facts are
 * accessors on the prototype and their slots private fields: made with a plain constructor, where
 * an own accessor costs an Object.defineProperty (about 1 µs each on the benchmark host, three per
 * model span). So `replays` and `userMessage` are not own keys: a spread or Object.keys does not
 * carry them (no reader of facts enumerates them; property reads, assignments and JSON do see them).
 */
class LazyFacts {
  dialect: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  service: string;
  startTimeMs: number;
  endTimeMs: number;
  role: SpanFacts['role'];
  proposals: SpanFacts['proposals'];
  #replays: Slot<'replays'> = [];
  #userMessage: Slot<'userMessage'> = undefined;
  #outputText: Slot<'outputText'> = undefined;

  constructor(span: Span, dialect: string, role: SpanFacts['role']) {
    this.dialect = dialect;
    this.traceId = span.traceId;
    this.spanId = span.spanId;
    this.parentSpanId = span.parentSpanId;
    this.service = span.service;
    this.startTimeMs = span.startTimeMs;
    this.endTimeMs = span.endTimeMs;
    this.role = role;
    this.proposals = [];
  }

  get replays(): SpanFacts['replays'] {
    const v = this.#replays;
    if (typeof v !== 'function') return v;
    return (this.#replays = v());
  }

  set replays(v: SpanFacts['replays']) {
    this.#replays = v;
  }

  get userMessage(): SpanFacts['userMessage'] {
    const v = this.#userMessage;
    if (typeof v !== 'function') return v;
    return (this.#userMessage = v());
  }

  set userMessage(v: SpanFacts['userMessage']) {
    this.#userMessage = v;
  }

  get outputText(): SpanFacts['outputText'] {
    const v = this.#outputText;
    if (typeof v !== 'function') return v;
    return (this.#outputText = v());
  }

  set outputText(v: SpanFacts['outputText']) {
    this.#outputText = v;
  }

  /** Makes a lazy fact's slot its computation (lazyFact). */
  defer<K extends LazyKey>(key: K, compute: () => SpanFacts[K]): void {
    if (key === 'replays') this.#replays = compute as () => SpanFacts['replays'];
    else if (key === 'userMessage') this.#userMessage = compute as () => SpanFacts['userMessage'];
    else this.#outputText = compute as () => SpanFacts['outputText'];
  }

  /** JSON carries the lazy facts as plain values, as it does for any other facts object. */
  toJSON(): object {
    return { ...this, replays: this.replays, userMessage: this.userMessage, outputText: this.outputText };
  }
}

/**
 * baseFacts for a reader that will define `replays`, `userMessage` or `outputText` lazily (lazyFact): the same
 * facts, made lazy for the price of a plain object (LazyFacts).
 */
export function lazyBaseFacts(span: Span, dialect: string, role: SpanFacts['role']): SpanFacts {
  const f = new LazyFacts(span, dialect, role) as unknown as SpanFacts;
  if (span.statusCode === 2) f.error = str(span.attributes, 'error.type') ?? (span.statusMessage || 'error');
  return f;
}

/**
 * Defines a fact that is computed on first read. Input history (the whole conversation, replayed
 * on every model span) is the costliest attribute to parse and is needed only for the few sampled
 * trajectories, never to count calls — so readers define `replays` and `userMessage` lazily, and
 * `outputText` where the output is text alone (its parse then serves nothing else: genai.ts).
 * Assigning the property replaces the computation with the plain value.
 */
export function lazyFact<K extends LazyKey>(f: SpanFacts, key: K, compute: () => SpanFacts[K]): void {
  if (f instanceof LazyFacts) {
    f.defer(key, compute);
    return;
  }
  let slots = slotsOf(f);
  if (slots === undefined) {
    slots = { replays: [], userMessage: undefined, outputText: undefined, installed: 0 };
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
