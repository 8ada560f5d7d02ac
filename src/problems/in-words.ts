/**
 * A problem's signature said in words, for people — the one wording of alert messages and the page
 * (src/ui/problem-words.ts renders it as HTML): `refund_order: `amount` is missing`,
 * `lookup: arguments cut off (truncated)`. Pure. Names that came from the spans or the
 * schema (a tool, a property) are marked as code, so each notifier renders them its own way
 * (backticks in plain text, an escaped code span in Slack) and none of them can format the rest.
 */
import type { Words } from '../alerts/rules.js';
import { OTHER_PROBLEM } from './store.js';

export interface ProblemWordsInput {
  /** A problem's id: the service's overflow row (`_other`) is said as such. */
  id?: string;
  outcome: string;
  tool: string;
  parts: readonly string[];
}

/** Marks a name; wordsOf() turns the marks back into segments. NUL never survives storableText. */
type Code = (s: string) => string;
const MARK = '\u0000';
const mark: Code = (s) => `${MARK}${s.replaceAll(MARK, '')}${MARK}`;

function wordsOf(marked: string): Words {
  return marked
    .split(MARK)
    .map((s, i) => (i % 2 === 1 ? { code: s } : { text: s }))
    .filter((w) => ('code' in w ? true : w.text !== ''));
}

const CAUSES: Record<string, string> = {
  truncated: 'arguments cut off before the end (truncated: max tokens or the stream)',
  concatenated: 'several JSON values glued together (concatenated)',
  python_literal: 'Python literals instead of JSON (python_literal)',
  trailing_text: 'text after the JSON arguments (trailing_text)',
  not_object: 'arguments are JSON but not an object (not_object)',
  empty: 'empty arguments (empty)',
  other: 'arguments are not valid JSON',
};

/** `/items/*\/sku` → `items[].sku`; the root → `(arguments)`. JSON Pointer escapes undone. */
function field(path: string): string {
  if (path === '/' || path === '') return '(arguments)';
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((out, seg) => (seg === '*' ? `${out}[]` : out ? `${out}.${seg}` : seg), '');
}

/** One reduced Ajv error (`keyword path`) in words. */
function schemaPart(part: string, code: Code): string {
  const space = part.indexOf(' ');
  const keyword = space < 0 ? part : part.slice(0, space);
  const path = space < 0 ? '/' : part.slice(space + 1);
  const f = code(field(path));
  switch (keyword) {
    case 'required':
    case 'dependentRequired':
    case 'dependencies':
      return `${f} is missing`;
    case 'type':
      return `${f} has the wrong type`;
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return path === '/' ? 'an undeclared property' : `an undeclared property in ${f}`;
    case 'enum':
    case 'const':
      return `${f} is not one of the allowed values`;
    case 'format':
    case 'pattern':
      return `${f} does not match its ${keyword}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'multipleOf':
      return `${f} is out of range (${keyword})`;
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      return `${f} has the wrong size (${keyword})`;
    default:
      return `${f} fails ${keyword}`;
  }
}

/** What fails, after the tool's name: `refund_order: `amount` is missing` (at most three parts, then "and N more"). */
export function problemInWords(p: ProblemWordsInput): Words {
  return wordsOf(line(p, mark));
}

/**
 * Each part in words (SchemaMismatch: one per reduced validation error, all of them), for a problem's
 * own view; the same wording as problemInWords.
 */
export function partsInWords(p: ProblemWordsInput): Words[] {
  if (isOther(p)) return [wordsOf(OTHER_WORDS)];
  if (p.outcome === 'SchemaMismatch' && p.parts.length > 0) return p.parts.map((x) => wordsOf(schemaPart(x, mark)));
  return [wordsOf(line(p, mark))];
}

const OTHER_WORDS = 'other failures of this service (past problems.max_per_service)';

const isOther = (p: ProblemWordsInput): boolean => p.id === OTHER_PROBLEM || p.outcome === OTHER_PROBLEM;

function line(p: ProblemWordsInput, code: Code): string {
  if (isOther(p)) return OTHER_WORDS;
  const tool = code(p.tool);
  switch (p.outcome) {
    case 'SchemaMismatch': {
      const shown = p.parts.slice(0, 3).map((x) => schemaPart(x, code));
      const more = p.parts.length > 3 ? ` and ${p.parts.length - 3} more` : '';
      return `${tool}: ${shown.join(', ') || 'arguments break the schema'}${more}`;
    }
    case 'InvalidJson':
      return `${tool}: ${CAUSES[p.parts[0] ?? 'other'] ?? CAUSES.other}`;
    case 'UnknownName':
      return `${tool} called, a tool that was not offered`;
    case 'execution': {
      // Parts are sorted: the status is the one without a `kind:` prefix.
      const detail = p.parts.find((x) => x.includes(':'));
      const status = p.parts.find((x) => !x.includes(':') && x !== '-');
      const how = detail?.startsWith('http:')
        ? ` (HTTP ${detail.slice(5)})`
        : detail?.startsWith('type:')
          ? ` (${code(detail.slice(5))})`
          : '';
      return `${tool}: execution ${status ?? 'failed'}${how}`;
    }
    default:
      return `${tool}: calls fail (${p.outcome})`;
  }
}
