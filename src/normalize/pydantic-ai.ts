/**
 * Pydantic AI (pydantic/pydantic-ai, `_instrumentation.py`, `capabilities/instrumentation.py`),
 * beyond the GenAI attributes its model-request spans share with `genai`:
 *
 * - model request `chat {model}`: `model_request_parameters` — JSON of the request parameters,
 *   `function_tools` and `output_tools` each `{name, description, parameters_json_schema, …}`. It is
 *   the only place the definitions are before `gen_ai.tool.definitions` was added; the output tools
 *   (`final_result`) are tools the model calls like any other.
 * - agent run `{agent} run`: `pydantic_ai.all_messages` — the run's whole conversation in the GenAI
 *   parts shape, `pydantic_ai.new_message_index` marking where this run's messages start (earlier
 *   ones are history passed in). Its tool calls repeat the model spans' proposals, so they are
 *   summary sightings: counted only when no model or tool span accounts for the call.
 * - instrumentation version 1 (older releases) kept messages as event lists in `events` (model
 *   request) and `all_messages_events` (agent run).
 */
import type { AttrObject, CallSighting, Span, SpanFacts, ToolDef } from '../model.js';
import type { DialectReader } from './dialect.js';
import { baseFacts, lazyFact } from './facts.js';
import { genAiRole, readGenAi, readGenAiCommon } from './genai.js';
import { firstUserText, proposalsOf, readMessages, type Msg } from './messages.js';
import { parseToolDefs } from '../tools/tooldefs.js';
import { hasAnyKey, isRecord, jsonValue, num, str } from '../util/values.js';

function requestDefinitions(a: AttrObject): readonly ToolDef[] | undefined {
  const p = jsonValue(a['model_request_parameters']);
  if (!isRecord(p)) return undefined;
  const tools = [p['function_tools'], p['output_tools']].flatMap((l) => (Array.isArray(l) ? l : []));
  return tools.length === 0 ? undefined : parseToolDefs(tools);
}

/** Version-1 event lists: the `gen_ai.choice` events are the model's output. */
function choiceEvents(v: unknown): Msg[] {
  const list = jsonValue(v);
  if (!Array.isArray(list)) return [];
  return readMessages(list.filter((e) => isRecord(e) && e['event.name'] === 'gen_ai.choice'));
}

/** The agent-run messages from `new_message_index` on (all of them when it is absent). */
function runMessages(a: AttrObject): { fresh: Msg[]; all: Msg[] } {
  const v2 = jsonValue(a['pydantic_ai.all_messages']);
  if (Array.isArray(v2)) {
    const from = Math.max(0, Math.floor(num(a, 'pydantic_ai.new_message_index') ?? 0));
    return { fresh: readMessages(v2.slice(from)), all: readMessages(v2) };
  }
  const v1 = choiceEvents(a['all_messages_events']);
  return { fresh: v1, all: v1 };
}

function readRun(span: Span): SpanFacts {
  const a = span.attributes;
  const f = baseFacts(span, 'pydantic-ai', 'agent');
  readGenAiCommon(a, f);
  f.model ??= str(a, 'model_name');
  const { fresh, all } = runMessages(a);
  const calls: CallSighting[] = proposalsOf(fresh.filter((m) => m.role === undefined || m.role === 'assistant'));
  if (calls.length > 0) f.summaryCalls = calls;
  lazyFact(f, 'userMessage', () => firstUserText(all));
  return f;
}

const MARKS = ['pydantic_ai.all_messages', 'all_messages_events', 'model_request_parameters'];

export const pydanticAiReader: DialectReader = {
  name: 'pydantic-ai',
  marks: { keys: MARKS },
  matches(span) {
    return hasAnyKey(span.attributes, MARKS);
  },
  read(span) {
    const a = span.attributes;
    if (a['model_request_parameters'] === undefined) return readRun(span);
    const f = readGenAi(span, 'pydantic-ai', genAiRole(a));
    f.offered ??= requestDefinitions(a);
    if (f.role === 'model' && f.proposals.length === 0 && a['events'] !== undefined) {
      f.proposals = proposalsOf(choiceEvents(a['events']));
    }
    return f;
  },
};
