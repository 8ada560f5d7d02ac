/**
 * The outcome contract (the README's outcome table): InvalidJson, UnknownName, SchemaMismatch, valid, else
 * unvalidated — the first that applies wins.
 */
import type { Outcome, ToolArgs, ToolDef, ValidationError } from '../model.js';
import { DEFAULT_CHECK_LIMITS, deeperThan, type ArgumentLimits, type CompileAllowance } from './budget.js';
import { validateBy } from './deadline.js';
import { invalidJsonCause } from './invalid-json-cause.js';
import type { ToolRegistry } from './registry.js';
import type { SchemaCache } from './schema-cache.js';
import { schemaShape } from '../tools/schema-shape.js';
import { parseJsonText } from '../util/values.js';

export interface CallToCheck {
  name: string;
  args: ToolArgs;
  service: string;
  /** Tools offered in the request; undefined or empty = the request carried no definitions. */
  offered?: readonly ToolDef[];
  /** The proposing model span's finish reasons: `length` makes an InvalidJson call `truncated`. */
  finishReasons?: readonly string[];
}

const MAX_ERRORS = 25;

/** What checking one call may cost (check/budget.ts); the defaults and no compile bound when absent. */
export interface CheckBounds {
  limits: ArgumentLimits;
  compiles?: CompileAllowance;
  /** When validation must have ended (performance.now() clock); none = no deadline. */
  deadlineMs?: number;
}

const DEFAULT_BOUNDS: CheckBounds = { limits: DEFAULT_CHECK_LIMITS };

/**
 * Never throws: whatever fails while one call is checked (a stack overflow in a recursive schema, a
 * schema nested too deep to read) is that call's outcome, `unvalidated`, and not its batch's error —
 * a batch that failed for it would fail the same way on every resend.
 */
export function classify(
  call: CallToCheck,
  registry: ToolRegistry,
  schemas: SchemaCache,
  bounds: CheckBounds = DEFAULT_BOUNDS,
): Outcome {
  try {
    return classifyUnguarded(call, registry, schemas, bounds);
  } catch (err) {
    return failedCheck(err);
  }
}

function failedCheck(err: unknown): Outcome {
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
  const overflow = err instanceof RangeError && /call stack/i.test(err.message);
  return { outcome: 'unvalidated', reason: overflow ? 'too_deep' : 'check_error', message };
}

function classifyUnguarded(
  call: CallToCheck,
  registry: ToolRegistry,
  schemas: SchemaCache,
  bounds: CheckBounds,
): Outcome {
  // A call nobody named cannot be checked, labelled or told apart from an invented name.
  if (call.name === '') return { outcome: 'unvalidated', reason: 'no_name' };
  const parsed = parseArguments(call.args);
  if (parsed.kind === 'invalid') {
    const raw = call.args.kind === 'none' ? '' : call.args.raw;
    return { outcome: 'InvalidJson', message: parsed.message, cause: invalidJsonCause(raw, call.finishReasons) };
  }

  const offered = call.offered && call.offered.length > 0 ? call.offered : undefined;
  let def: ToolDef | undefined;
  if (offered) {
    def = named(offered, call.name);
    if (!def) return { outcome: 'UnknownName', known: offered.map((t) => t.name) };
  } else if (registry.knows(call.service)) {
    def = registry.lookup(call.service, call.name);
    if (!def) return { outcome: 'UnknownName', known: registry.names(call.service) };
  } else {
    return { outcome: 'unvalidated', reason: 'no_schema' };
  }

  if (parsed.kind === 'none') return { outcome: 'unvalidated', reason: 'no_arguments' };
  // Bounded before anything is compiled or run: validation is synchronous, on the event loop.
  const { maxArgumentBytes, maxArgumentDepth } = bounds.limits;
  const raw = call.args.kind === 'none' ? '' : call.args.raw;
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most arguments are within the bound without counting.
  const bytes = raw.length * 3 <= maxArgumentBytes ? 0 : Buffer.byteLength(raw);
  if (bytes > maxArgumentBytes) {
    const message = `arguments of ${bytes} bytes are larger than check.max_argument_bytes (${maxArgumentBytes})`;
    return { outcome: 'unvalidated', reason: 'too_large', message };
  }
  if (deeperThan(parsed.value, maxArgumentDepth)) {
    const message = `arguments nested deeper than check.max_argument_depth (${maxArgumentDepth})`;
    return { outcome: 'unvalidated', reason: 'too_deep', message };
  }
  // The first candidate that is a schema: the offered definition's, then the registry's for the same
  // tool (looked up only then: the lookup is pure). A candidate with no known keyword is passed over
  // (a reader may have been handed arguments where a schema belongs); when every candidate present
  // is like that, the call is `bad_schema`.
  let schema = def.parameters;
  if (schema === undefined || !isSchema(schema)) {
    const registered = offered ? registry.lookup(call.service, call.name)?.parameters : undefined;
    if (registered !== undefined && isSchema(registered)) schema = registered;
    else if (schema === undefined && registered === undefined) return { outcome: 'unvalidated', reason: 'no_schema' };
    else return { outcome: 'unvalidated', reason: 'bad_schema', message: NOT_A_SCHEMA };
  }
  const compiled = schemas.get(schema, bounds.compiles);
  if (!compiled.ok) {
    const reason = 'refused' in compiled ? compiled.refused : 'bad_schema';
    return { outcome: 'unvalidated', reason, message: compiled.message };
  }
  const valid = validateBy(compiled.validate, parsed.value, bounds.deadlineMs ?? Number.POSITIVE_INFINITY);
  if (valid === 'deadline') {
    const message = "validation stopped: the batch's check.validation_time_per_batch was spent";
    return { outcome: 'unvalidated', reason: 'budget', message };
  }
  if (valid) return VALID;
  return { outcome: 'SchemaMismatch', errors: toErrors(compiled.validate.errors) };
}

/** One object for every valid call (nothing writes to an outcome). */
const VALID: Outcome = Object.freeze({ outcome: 'valid' });

/** The offered definition of this name (a loop: no closure per call). */
function named(offered: readonly ToolDef[], name: string): ToolDef | undefined {
  for (const t of offered) if (t.name === name) return t;
  return undefined;
}

const NOT_A_SCHEMA = 'not a JSON Schema: no known keyword (an object of unknown words accepts everything)';

function isSchema(c: unknown): boolean {
  return typeof c === 'string' || schemaShape(c) !== 'not-a-schema';
}

type Parsed = { kind: 'none' } | { kind: 'invalid'; message: string } | { kind: 'object'; value: unknown };

function parseArguments(args: ToolArgs): Parsed {
  if (args.kind === 'none') return { kind: 'none' };
  let value: unknown;
  if (args.kind === 'structured') value = args.value;
  else {
    try {
      value = parseJsonText(args.raw);
    } catch (err) {
      return { kind: 'invalid', message: (err as Error).message.slice(0, 300) };
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      kind: 'invalid',
      message: `arguments must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    };
  }
  return { kind: 'object', value };
}

function toErrors(
  errors: readonly { instancePath: string; keyword: string; message?: string; params: object }[] | null | undefined,
): ValidationError[] {
  return (errors ?? []).slice(0, MAX_ERRORS).map((e) => ({
    instancePath: e.instancePath,
    keyword: e.keyword,
    message: e.message ?? e.keyword,
    params: { ...(e.params as Record<string, unknown>) },
  }));
}
