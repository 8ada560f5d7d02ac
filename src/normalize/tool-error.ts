/**
 * A tool that reports failure inside a success: the span says nothing failed (status unset or OK, no
 * failing HTTP status), but the result the tool handed back is an error envelope — MCP's
 * `{"content": […], "isError": true}`, `{"ok": false, …}`, `{"success": false, …}`,
 * `{"status": "error", …}` (Google ADK's tool examples), `{"error": {…}}`. Teams lose days to a tool that quietly returns errors with HTTP 200, so such an
 * execution counts as `tool_error`.
 *
 * A rule is `path=value` (the value at a dotted path of the result object equals a JSON literal:
 * `isError=true`, `ok=false`, `status="error"`) or a bare `path` (present and not null, false, `""`,
 * `{}` or `[]`: `{"error": null}` is no error). Only a result that is a JSON object is read, and only
 * when its text names one of the rules' first keys (a substring test first, so the parse is paid only
 * by results that may match). Pure.
 */
import { isRecord, parseJson } from '../util/values.js';
import { regexpLiteral } from '../util/regexp-literal.js';

export interface ToolErrorRule {
  /** As written in the config, e.g. `ok=false`. */
  text: string;
  path: readonly string[];
  /** Undefined: present and not empty. */
  equals?: unknown;
  /** `"<first key>"`, the substring a result must contain to be parsed. */
  probe: string;
  /**
   * The text a result must contain for `equals` to match when it holds no backslash (a JSON literal
   * cannot be escaped; a string can only with one): `false`, `"error"`. Absent for numbers (`1`
   * can be written `1.0`) and bare paths; then only the probe decides.
   */
  literal?: string;
}

/** The rules applied when the config names none. */
export const DEFAULT_TOOL_ERROR_RULES: readonly string[] = [
  'isError=true',
  'ok=false',
  'success=false',
  'status="error"',
  'error',
];

/** Results longer than this are not parsed (an envelope is small; a page of search results is not one). */
export const MAX_TOOL_RESULT_READ = 64 * 1024;

const PATH = /^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*){0,7}$/;

/** A rule from its text; a string describing what is wrong when it cannot be read. */
export function parseToolErrorRule(text: string): ToolErrorRule | string {
  const at = text.indexOf('=');
  const pathText = (at < 0 ? text : text.slice(0, at)).trim();
  if (!PATH.test(pathText)) return `"${text}": the path must be keys joined by dots (e.g. error or result.ok)`;
  const path = pathText.split('.');
  const probe = JSON.stringify(path[0]);
  if (at < 0) return { text, path, probe };
  const raw = text.slice(at + 1).trim();
  let equals: unknown;
  try {
    equals = JSON.parse(raw);
  } catch {
    return `"${text}": the value after = must be a JSON literal (true, false, null, a number or a "string")`;
  }
  if (equals !== null && typeof equals === 'object') return `"${text}": the value must be a literal, not ${raw}`;
  const literal = typeof equals === 'number' ? undefined : JSON.stringify(equals);
  // A literal that needs an escape (a quote, a control character, a lone surrogate) is no plain text.
  if (literal === undefined || literal.includes('\\')) return { text, path, equals, probe };
  return { text, path, equals, probe, literal };
}

export interface ToolErrorReading {
  /** The rule that matched. */
  rule: string;
  /**
   * A code the envelope gives (`error.code`, `error.type`, `code`, or `error` itself when a short
   * identifier), else the rule's first key: the problem's `type:` detail.
   */
  errorType: string;
}

/** The first rule the result matches; undefined when it reports no failure (or is no JSON object). */
export function toolErrorOf(result: string | undefined, rules: readonly ToolErrorRule[]): ToolErrorReading | undefined {
  if (result === undefined || rules.length === 0 || result.length > MAX_TOOL_RESULT_READ) return undefined;
  let i = 0;
  while (i < result.length && (result.charCodeAt(i) <= 32 || result.charCodeAt(i) === 0xfeff)) i++;
  if (result.charCodeAt(i) !== 123 /* { */) return undefined;
  if (!probeScan(rules).test(result)) return undefined;
  // Most results that name a rule's key do not carry its value (`"status": "shipped"`): without a
  // backslash every key and string is written as is, so a rule whose literal is absent from the text
  // cannot match either, and a result no rule can match is not parsed (the answer is the same).
  const plain = !result.includes('\\');
  const mayMatch = (r: ToolErrorRule) =>
    result.includes(r.probe) && (!plain || r.literal === undefined || result.includes(r.literal));
  if (!rules.some(mayMatch)) return undefined;
  const value = parseJson(result);
  if (!isRecord(value)) return undefined;
  for (const r of rules) {
    const v = at(value, r.path);
    const hit = r.equals === undefined ? present(v) : v === r.equals;
    if (hit) return { rule: r.text, errorType: codeOf(value) ?? r.path[0]! };
  }
  return undefined;
}

/**
 * Whether the text names any rule's first key, in one scan: most results name none (a page of
 * search hits, a weather report), and one regular expression of the probes costs less than a
 * search per rule (about 2.5 times, measured on the bench's results). Literal alternatives only:
 * linear. Made once per rule list.
 */
const probeScans = new WeakMap<readonly ToolErrorRule[], RegExp>();

function probeScan(rules: readonly ToolErrorRule[]): RegExp {
  let re = probeScans.get(rules);
  if (re === undefined) {
    re = new RegExp(rules.map((r) => regexpLiteral(r.probe)).join('|'));
    probeScans.set(rules, re);
  }
  return re;
}

function at(o: Record<string, unknown>, path: readonly string[]): unknown {
  let v: unknown = o;
  for (const k of path) {
    if (!isRecord(v) || !Object.hasOwn(v, k)) return undefined;
    v = v[k];
  }
  return v;
}

function present(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isRecord(v)) return Object.keys(v).length > 0;
  return true;
}

const CODE = /^[A-Za-z_][\w.:-]{0,99}$/;

function codeOf(o: Record<string, unknown>): string | undefined {
  const e = o.error;
  const candidates = isRecord(e) ? [e.code, e.type, o.code] : [o.code, e];
  for (const c of candidates) {
    if (typeof c === 'string' && CODE.test(c)) return c;
    if (typeof c === 'number' && Number.isInteger(c)) return String(c);
  }
  return undefined;
}
