/**
 * The system prompt's version from the input history, where a span has no
 * `gen_ai.system_instructions`: the history's first message when its role is `system` (or OpenAI's
 * `developer`). The history is the whole conversation and grows with every turn, so it is not
 * parsed for this: only its first element is cut out of the JSON text (a scan that stops at the end
 * of that message) and parsed, and its version is cached per distinct text (definition-hash.ts).
 * Its semconv `parts` hash as `gen_ai.system_instructions` with the same parts does; a plain
 * `content` string as that text does.
 */
import type { AttrValue } from '../model.js';
import { promptVersion } from '../tools/definition-hash.js';
import { eachArrayElement } from '../util/json-elements.js';
import { parseJson } from '../util/values.js';

const SYSTEM_ROLES = new Set(['system', 'developer']);
/** A system message longer than this is not looked for (the scan stays bounded on any input). */
const MAX_SYSTEM_CHARS = 256 * 1024;

const isRec = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON text of the first element of a JSON array of objects, without parsing the rest. */
function firstElementText(s: string): string | undefined {
  let first: string | undefined;
  eachArrayElement(s, (text) => ((first = text), true), MAX_SYSTEM_CHARS);
  return first?.charCodeAt(0) === 0x7b ? first : undefined;
}

/** The version of the leading system message of an input-history attribute (JSON text or decoded list). */
export function systemMessageVersion(history: AttrValue | undefined): string | undefined {
  let first: unknown;
  if (typeof history === 'string') {
    if (!history.includes('"system"') && !history.includes('"developer"')) return undefined;
    const text = firstElementText(history);
    first = text === undefined ? undefined : parseJson(text);
  } else if (Array.isArray(history)) first = history[0];
  return firstMessageVersion(first);
}

/** A message that is the system's (a role, or LangChain's `type: "system"`): its parts or content hashed. */
function firstMessageVersion(first: unknown): string | undefined {
  if (!isRec(first)) return undefined;
  const role = typeof first['role'] === 'string' ? first['role'] : first['type'] === 'system' ? 'system' : undefined;
  if (role === undefined || !SYSTEM_ROLES.has(role)) return undefined;
  const body = first['parts'] ?? first['content'];
  if (typeof body === 'string') return promptVersion(body);
  if (body === undefined || body === null) return undefined;
  return promptVersion(JSON.stringify(body));
}

/**
 * The system prompt's version in a provider request as Langfuse generations and MLflow spans carry
 * it (decoded): Anthropic's `system`, the Responses API's `instructions`, else the leading system
 * or developer message of its `messages` / `input`, or of a bare message list.
 */
export function requestPromptVersion(request: unknown): string | undefined {
  if (Array.isArray(request)) return firstMessageVersion(request[0]);
  if (!isRec(request)) return undefined;
  for (const key of ['system', 'instructions'] as const) {
    const v = request[key];
    if (typeof v === 'string') return promptVersion(v);
    if (Array.isArray(v) && v.length > 0) return promptVersion(JSON.stringify(v));
  }
  for (const key of ['messages', 'input'] as const) {
    const list = request[key];
    if (Array.isArray(list)) return firstMessageVersion(list[0]);
  }
  return undefined;
}
