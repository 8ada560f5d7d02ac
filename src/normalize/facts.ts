/** The parts of SpanFacts every reader fills the same way. */
import type { Span, SpanFacts, ToolExecution } from '../model.js';
import { spanStatus } from './exec-status.js';
import { assistantText, firstUserText, replaysOf, type Msg } from './messages.js';
import { str, toToolArgs, resultText } from '../util/values.js';

/**
 * A span's facts as every reader starts them: one class (SpanFactsObject) for every span of every
 * dialect, so the loops over a batch's facts (observers, the pipeline) read them at one hidden class.
 */
export function baseFacts(span: Span, dialect: string, role: SpanFacts['role']): SpanFacts {
  const f = new SpanFactsObject(span, dialect, role) as unknown as SpanFacts;
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
  // Every field set, the optional ones undefined: one hidden class for every tool span's execution
  // (as baseFacts does for the facts; with the fields each span has, the bench's alone had four).
  return {
    name,
    args: toToolArgs(args),
    status: s.status,
    durationMs: Math.max(0, span.endTimeMs - span.startTimeMs),
    callId,
    errorType: s.errorType,
    httpStatus: s.httpStatus,
    result: resultText(result),
  };
}

type LazyKey = 'replays' | 'userMessage' | 'outputText';
/** A lazy fact's slot: its compute function until the first read, then its value. */
type Slot<K extends LazyKey> = SpanFacts[K] | (() => SpanFacts[K]);
/**
 * Turns a span's history or output attribute into messages: a module-level function, made once.
 * `firstUser`, where the reader has one, answers firstUserText of its messages without reading
 * them all (messages.ts, firstUserTextOfJson): `userMessage` uses it unless the history was read.
 */
export type MessagesReader = ((source: unknown) => Msg[]) & { firstUser?: (source: unknown) => string | undefined };
/** A SpanFactsObject slot computed from the span's history or output its fields hold (lazyHistory, lazyOutputText). */
const FROM_SPAN = Symbol('from the span');
type LazySlot<K extends LazyKey> = Slot<K> | typeof FROM_SPAN;
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
 * The facts of every span a reader reads (baseFacts). Every fact is declared here, the optional
 * ones undefined until a reader sets them, so that the facts of a tool span, an agent span and a
 * model span of any dialect share one hidden class: each loop over a batch's facts (the observers,
 * the pipeline) then reads them at one shape. As plain objects with the facts each reader added,
 * the bench's GenAI batches alone had five shapes, past what V8 caches per read (four): every read
 * went through its megamorphic lookup. The optional facts are own keys with the value undefined
 * (a spread or Object.keys sees them; JSON leaves them out, as it does any undefined value).
 *
 * The lazy facts are accessors on the prototype and their slots private fields: made with a plain
 * constructor, where an own accessor costs an Object.defineProperty (about 1 µs each on the benchmark
 * host, three per model span). So `replays`, `userMessage` and `outputText` are not own keys: a
 * spread or Object.keys does not carry them (no reader of facts enumerates them; property reads,
 * assignments and JSON do see them). The history and a text-only output are kept in fields with
 * their readers (lazyHistory, lazyOutputText) rather than in closures: a context and three or four
 * functions per model span.
 */
class SpanFactsObject {
  dialect: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  service: string;
  startTimeMs: number;
  endTimeMs: number;
  role: SpanFacts['role'];
  proposals: SpanFacts['proposals'];
  scope?: SpanFacts['scope'];
  scopeVersion?: SpanFacts['scopeVersion'];
  model?: SpanFacts['model'];
  provider?: SpanFacts['provider'];
  inputTokens?: SpanFacts['inputTokens'];
  outputTokens?: SpanFacts['outputTokens'];
  offered?: SpanFacts['offered'];
  promptVersion?: SpanFacts['promptVersion'];
  finishReasons?: SpanFacts['finishReasons'];
  execution?: SpanFacts['execution'];
  error?: SpanFacts['error'];
  summaryCalls?: SpanFacts['summaryCalls'];
  schemasOnToolSpans?: SpanFacts['schemasOnToolSpans'];
  claimId?: SpanFacts['claimId'];
  awaitsSpan?: SpanFacts['awaitsSpan'];
  #replays: LazySlot<'replays'> = [];
  #userMessage: LazySlot<'userMessage'> = undefined;
  #outputText: LazySlot<'outputText'> = undefined;
  /** The history and its reader while a slot is FROM_SPAN; its messages once read, for both slots. */
  #input: unknown = undefined;
  #readInput: MessagesReader | undefined = undefined;
  #history: Msg[] | undefined = undefined;
  /** A text-only output and its reader while `outputText` is FROM_SPAN. */
  #output: unknown = undefined;
  #readOutput: MessagesReader | undefined = undefined;

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
    if (v === FROM_SPAN) {
      const value = replaysOf(this.#messages());
      this.replays = value;
      return value;
    }
    if (typeof v !== 'function') return v;
    return (this.#replays = v());
  }

  set replays(v: SpanFacts['replays']) {
    this.#replays = v;
    this.#dropHistory();
  }

  get userMessage(): SpanFacts['userMessage'] {
    const v = this.#userMessage;
    if (v === FROM_SPAN) {
      const first = this.#history === undefined ? this.#readInput!.firstUser : undefined;
      const value = first ? first(this.#input) : firstUserText(this.#messages());
      this.userMessage = value;
      return value;
    }
    if (typeof v !== 'function') return v;
    return (this.#userMessage = v());
  }

  set userMessage(v: SpanFacts['userMessage']) {
    this.#userMessage = v;
    this.#dropHistory();
  }

  get outputText(): SpanFacts['outputText'] {
    const v = this.#outputText;
    if (v === FROM_SPAN) {
      const value = assistantText(this.#readOutput!(this.#output));
      this.outputText = value;
      return value;
    }
    if (typeof v !== 'function') return v;
    return (this.#outputText = v());
  }

  set outputText(v: SpanFacts['outputText']) {
    this.#outputText = v;
    this.#output = undefined;
    this.#readOutput = undefined;
  }

  #messages(): Msg[] {
    return (this.#history ??= this.#readInput!(this.#input));
  }

  /** Once no slot reads the history any more, it is let go (as a settled closure let go of what it held). */
  #dropHistory(): void {
    if (this.#replays === FROM_SPAN || this.#userMessage === FROM_SPAN) return;
    this.#input = undefined;
    this.#readInput = undefined;
    this.#history = undefined;
  }

  /**
   * Makes `replays` and/or `userMessage` read `read(input)` (lazyHistory); false, changing nothing,
   * when a slot left out still reads an earlier history (the caller then defines them by closures).
   */
  deferHistory(input: unknown, read: MessagesReader, replays: boolean, userMessage: boolean): boolean {
    if ((!replays && this.#replays === FROM_SPAN) || (!userMessage && this.#userMessage === FROM_SPAN)) return false;
    this.#input = input;
    this.#readInput = read;
    this.#history = undefined;
    if (replays) this.#replays = FROM_SPAN;
    if (userMessage) this.#userMessage = FROM_SPAN;
    return true;
  }

  /** Makes `outputText` the assistant text of `read(output)` (lazyOutputText). */
  deferOutputText(output: unknown, read: MessagesReader): void {
    this.#output = output;
    this.#readOutput = read;
    this.#outputText = FROM_SPAN;
  }

  /** Makes a lazy fact's slot its computation (lazyFact). */
  defer<K extends LazyKey>(key: K, compute: () => SpanFacts[K]): void {
    if (key === 'replays') this.#replays = compute as () => SpanFacts['replays'];
    else if (key === 'userMessage') this.#userMessage = compute as () => SpanFacts['userMessage'];
    else {
      this.#outputText = compute as () => SpanFacts['outputText'];
      this.#output = undefined;
      this.#readOutput = undefined;
    }
    this.#dropHistory();
  }

  /** JSON carries the lazy facts as plain values, as it does for any other facts object. */
  toJSON(): object {
    return { ...this, replays: this.replays, userMessage: this.userMessage, outputText: this.outputText };
  }
}

/**
 * Defines a fact that is computed on first read. Input history (the whole conversation, replayed
 * on every model span) is the costliest attribute to parse and is needed only for the few sampled
 * trajectories, never to count calls — so readers define `replays` and `userMessage` lazily, and
 * `outputText` where the output is text alone (its parse then serves nothing else: genai.ts).
 * Assigning the property replaces the computation with the plain value.
 */
export function lazyFact<K extends LazyKey>(f: SpanFacts, key: K, compute: () => SpanFacts[K]): void {
  if (f instanceof SpanFactsObject) {
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
    // A fact already set as a plain value (a facts object not made by baseFacts; every reader in
    // src/ makes its facts there, so today only tests come here) is redefined: correct, though
    // that object leaves fast mode.
    slots.installed |= bit;
    Object.defineProperty(f, key, ACCESSORS[key]);
  }
  (slots[key] as Slot<K>) = compute;
}

/**
 * Defines `replays` and `userMessage` (or only those asked for) lazily from a span's input history:
 * `read(input)` runs on the first read of either, once for both. Pass a module-level `read`: on a
 * model span's facts (baseFacts) this then makes no function at all.
 */
export function lazyHistory(
  f: SpanFacts,
  input: unknown,
  read: MessagesReader,
  replays = true,
  userMessage = true,
): void {
  if (f instanceof SpanFactsObject && f.deferHistory(input, read, replays, userMessage)) return;
  let msgs: Msg[] | undefined;
  const history = () => (msgs ??= read(input));
  if (replays) lazyFact(f, 'replays', () => replaysOf(history()));
  const first = read.firstUser;
  if (userMessage)
    lazyFact(f, 'userMessage', () => (msgs === undefined && first ? first(input) : firstUserText(history())));
}

/** Defines `outputText` lazily: the assistant text of `read(output)`, read on first use. */
export function lazyOutputText(f: SpanFacts, output: unknown, read: MessagesReader): void {
  if (f instanceof SpanFactsObject) f.deferOutputText(output, read);
  else lazyFact(f, 'outputText', () => assistantText(read(output)));
}
