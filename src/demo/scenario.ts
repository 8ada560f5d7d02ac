/**
 * The demo's agents: three services, each an agent turn at a time, written as the OpenTelemetry
 * GenAI conventions say (an invoke_agent span, chat spans with `gen_ai.tool.definitions` and the
 * proposed calls in `gen_ai.output.messages`, execute_tool spans with the HTTP status the tool's API
 * answered) and emitted through the real SDK by src/demo/run.ts. What happens is drawn from a seeded
 * generator, so every run tells the same story:
 * - support-bot switches from gpt-4.1 to gpt-4.1-mini at `modelSwitchMs`; the smaller model invents
 *   enum values and tool names more often;
 * - shop-agent's refund_order definition changes at `definitionChangeMs` (`amount` becomes required)
 *   and the model keeps leaving it out; the refund API answers 422 when it does, 404 for unknown orders;
 * - research-agent gets cut off at max tokens now and then (InvalidJson, truncated), calls a tool
 *   offered without parameters (unvalidated), and its search API is down at times (503);
 * - users leave feedback (`toolwatch.feedback`) on some turns, mostly down when a call failed.
 */
import { ROOT_CONTEXT, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';

export const DEMO_SERVICES = ['support-bot', 'shop-agent', 'research-agent'] as const;
export type DemoService = (typeof DEMO_SERVICES)[number];

export interface Timeline {
  /** support-bot's model switch (gpt-4.1 → gpt-4.1-mini). */
  modelSwitchMs: number;
  /** shop-agent's refund_order definition change (`amount` becomes required). */
  definitionChangeMs: number;
}

const fn = (name: string, description: string, parameters?: object) => ({
  type: 'function',
  name,
  description,
  ...(parameters ? { parameters } : {}),
});
const obj = (properties: object, required: string[]) => ({ type: 'object', properties, required });

const SUPPORT_TOOLS = JSON.stringify([
  fn('lookup_order', 'Find an order by its id', obj({ order_id: { type: 'string' } }, ['order_id'])),
  fn(
    'search_kb',
    'Search the help-centre articles',
    obj({ query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 10 } }, ['query']),
  ),
  fn(
    'escalate',
    'Hand the conversation to a human',
    obj({ reason: { enum: ['billing', 'technical', 'other'] }, note: { type: 'string' } }, ['reason']),
  ),
]);

const refund = (required: string[], description: string) =>
  fn(
    'refund_order',
    description,
    obj(
      { order_id: { type: 'string' }, amount: { type: 'number', exclusiveMinimum: 0 }, reason: { type: 'string' } },
      required,
    ),
  );
const getOrder = fn('get_order', 'Read an order', obj({ order_id: { type: 'string' } }, ['order_id']));
const SHOP_TOOLS_V1 = JSON.stringify([
  refund(['order_id'], 'Refund an order (in full unless an amount is given)'),
  getOrder,
]);
const SHOP_TOOLS_V2 = JSON.stringify([
  refund(['order_id', 'amount'], 'Refund part of an order: the amount is required'),
  getOrder,
]);

const RESEARCH_TOOLS = JSON.stringify([
  fn('web_search', 'Search the web', obj({ query: { type: 'string', minLength: 2 } }, ['query'])),
  fn('fetch_page', 'Fetch a web page', obj({ url: { type: 'string' } }, ['url'])),
  // Offered without a parameter schema: its calls cannot be checked (unvalidated).
  fn('summarize', 'Summarize the pages read so far'),
]);

interface Call {
  name: string;
  arguments: string;
  /** The HTTP status the tool's API answers; undefined = no tool span (the call never ran). */
  status?: number;
}

interface Turn {
  service: DemoService;
  model: string;
  provider: string;
  tools: string;
  question: string;
  calls: Call[];
  /** The chat span's finish reason (`length` when the model was cut off). */
  finish: string;
  /** A second model step that repairs the failed calls, if any. */
  repair?: Call;
  feedback?: 'up' | 'down';
}

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const orderId = (rnd: () => number) => `A${Math.floor(1000 + rnd() * 9000)}`;

function supportTurn(rnd: () => number, atMs: number, t: Timeline): Turn {
  const mini = atMs >= t.modelSwitchMs;
  const model = mini ? 'gpt-4.1-mini' : 'gpt-4.1';
  const r = rnd();
  const id = orderId(rnd);
  let call: Call;
  if (r < (mini ? 0.1 : 0.02))
    call = { name: 'escalate', arguments: JSON.stringify({ reason: pick(rnd, ['urgent', 'refund']) }) };
  else if (r < (mini ? 0.15 : 0.03)) call = { name: 'get_order_status', arguments: JSON.stringify({ order_id: id }) };
  else if (r < (mini ? 0.19 : 0.04))
    call = { name: 'search_kb', arguments: JSON.stringify({ query: 'reset password', limit: '5' }) };
  else if (r < (mini ? 0.21 : 0.05)) call = { name: 'lookup_order', arguments: `{'order_id': '${id}'}` };
  else if (r < 0.55)
    call = { name: 'lookup_order', arguments: JSON.stringify({ order_id: id }), status: rnd() < 0.06 ? 404 : 200 };
  else if (r < 0.85)
    call = {
      name: 'search_kb',
      arguments: JSON.stringify({ query: pick(rnd, ['refund policy', 'shipping times', 'change address']), limit: 3 }),
      status: 200,
    };
  else
    call = {
      name: 'escalate',
      arguments: JSON.stringify({ reason: pick(rnd, ['billing', 'technical', 'other']) }),
      status: 200,
    };
  return {
    service: 'support-bot',
    model,
    provider: 'openai',
    tools: SUPPORT_TOOLS,
    question: 'Where is my order?',
    calls: [call],
    finish: 'tool_calls',
  };
}

function shopTurn(rnd: () => number, atMs: number, t: Timeline): Turn {
  const v2 = atMs >= t.definitionChangeMs;
  const id = orderId(rnd);
  const r = rnd();
  let call: Call;
  if (r < 0.45) {
    // After the change the model still leaves the amount out a quarter of the time; the API refuses it.
    const missing = v2 && rnd() < 0.25;
    const args = missing
      ? { order_id: id, reason: 'damaged' }
      : { order_id: id, amount: Math.round(rnd() * 9000) / 100 + 1, reason: 'damaged' };
    call = { name: 'refund_order', arguments: JSON.stringify(args), status: missing ? 422 : rnd() < 0.04 ? 404 : 200 };
  } else if (r < 0.47)
    call = {
      name: 'refund_order',
      arguments: JSON.stringify({ order_id: Number(id.slice(1)), amount: 10 }),
      status: 422,
    };
  else call = { name: 'get_order', arguments: JSON.stringify({ order_id: id }), status: rnd() < 0.05 ? 404 : 200 };
  return {
    service: 'shop-agent',
    model: 'claude-sonnet-4-5',
    provider: 'anthropic',
    tools: v2 ? SHOP_TOOLS_V2 : SHOP_TOOLS_V1,
    question: 'I want my money back for the broken mug',
    calls: [call],
    finish: 'tool_use',
  };
}

function researchTurn(rnd: () => number): Turn {
  const r = rnd();
  const query = pick(rnd, [
    'otel genai semantic conventions',
    'json schema 2020-12 required',
    'tool calling benchmarks',
  ]);
  const base = {
    service: 'research-agent' as const,
    model: 'gemini-2.5-flash',
    provider: 'gcp.gemini',
    tools: RESEARCH_TOOLS,
    question: 'Find sources on tool calling',
  };
  if (r < 0.05) {
    // Cut off at max tokens in the middle of the arguments.
    const full = JSON.stringify({ query });
    return {
      ...base,
      calls: [{ name: 'web_search', arguments: full.slice(0, Math.max(3, Math.floor(full.length * 0.6))) }],
      finish: 'length',
    };
  }
  if (r < 0.07)
    return {
      ...base,
      calls: [{ name: 'browse', arguments: JSON.stringify({ url: 'https://example.org' }) }],
      finish: 'tool_calls',
    };
  if (r < 0.2) return { ...base, calls: [{ name: 'summarize', arguments: '{}', status: 200 }], finish: 'tool_calls' };
  if (r < 0.45)
    return {
      ...base,
      calls: [
        {
          name: 'fetch_page',
          arguments: JSON.stringify({ url: 'https://opentelemetry.io/docs/specs/semconv/gen-ai/' }),
          status: rnd() < 0.05 ? 404 : 200,
        },
      ],
      finish: 'tool_calls',
    };
  // The search API has a bad patch: 503s.
  return {
    ...base,
    calls: [{ name: 'web_search', arguments: JSON.stringify({ query }), status: rnd() < 0.08 ? 503 : 200 }],
    finish: 'tool_calls',
  };
}

const WEIGHTS: readonly [DemoService, number][] = [
  ['support-bot', 0.45],
  ['shop-agent', 0.3],
  ['research-agent', 0.25],
];

/** Is this call going to fail the checker or its API (the model would try again)? */
const failed = (t: Turn, c: Call): boolean => c.status === undefined || c.status >= 400 || t.finish === 'length';

/** The next turn of the traffic at `atMs`: which agent, what its model proposes, how its tools answer. */
export function nextTurn(rnd: () => number, atMs: number, t: Timeline): Turn {
  let r = rnd();
  let service: DemoService = 'support-bot';
  for (const [s, w] of WEIGHTS) {
    if (r < w) {
      service = s;
      break;
    }
    r -= w;
  }
  const turn =
    service === 'support-bot'
      ? supportTurn(rnd, atMs, t)
      : service === 'shop-agent'
        ? shopTurn(rnd, atMs, t)
        : researchTurn(rnd);
  const bad = turn.calls.some((c) => failed(turn, c));
  if (bad && rnd() < 0.6) {
    const first = turn.calls[0]!;
    // The repair: a valid call of a tool the service offers (for an invented name, its nearest real one).
    const name =
      first.name === 'get_order_status' ? 'lookup_order' : first.name === 'browse' ? 'fetch_page' : first.name;
    const args =
      name === 'refund_order'
        ? { order_id: orderId(rnd), amount: 12.5, reason: 'damaged' }
        : name === 'escalate'
          ? { reason: 'other' }
          : name === 'search_kb'
            ? { query: 'reset password', limit: 5 }
            : name === 'web_search'
              ? { query: 'tool calling benchmarks' }
              : name === 'fetch_page'
                ? { url: 'https://example.org' }
                : { order_id: orderId(rnd) };
    turn.repair = { name, arguments: JSON.stringify(args), status: 200 };
  }
  const f = rnd();
  if (f < (bad ? 0.35 : 0.05)) turn.feedback = bad && f < 0.3 ? 'down' : 'up';
  return turn;
}

/** Emits one turn ending at `endMs` through `tracer` (the provider of the turn's service). */
export function emitTurn(tracer: Tracer, turn: Turn, endMs: number, seq: number): void {
  const start = endMs - 4000;
  const agent = tracer.startSpan(`invoke_agent ${turn.service}`, { startTime: start });
  const ctx = trace.setSpan(ROOT_CONTEXT, agent);
  agent.setAttributes({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': turn.service });
  if (turn.feedback) agent.setAttribute('toolwatch.feedback', turn.feedback);
  const chat = (calls: Call[], at: number, finish: string, step: number) => {
    const span = tracer.startSpan(`chat ${turn.model}`, { startTime: at }, ctx);
    span.setAttributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': turn.provider,
      'gen_ai.request.model': turn.model,
      'gen_ai.response.model': turn.model,
      'gen_ai.response.finish_reasons': [finish],
      'gen_ai.usage.input_tokens': 900 + step * 250,
      'gen_ai.usage.output_tokens': 40 + calls.length * 30,
      'gen_ai.tool.definitions': turn.tools,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: turn.question }] }]),
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          finish_reason: finish,
          parts: calls.map((c, i) => ({
            type: 'tool_call',
            id: `call_${seq}_${step}_${i}`,
            name: c.name,
            arguments: c.arguments,
          })),
        },
      ]),
    });
    span.end(at + 900);
    calls.forEach((c, i) => {
      if (c.status === undefined || finish === 'length') return;
      const tool = tracer.startSpan(`execute_tool ${c.name}`, { startTime: at + 950 }, ctx);
      tool.setAttributes({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': c.name,
        'gen_ai.tool.call.id': `call_${seq}_${step}_${i}`,
        'http.response.status_code': c.status,
      });
      if (c.status >= 400) {
        tool.setAttribute('error.type', String(c.status));
        tool.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${c.status}` });
      }
      tool.end(at + 1300);
    });
  };
  chat(turn.calls, start + 100, turn.finish, 0);
  if (turn.repair) chat([turn.repair], start + 1600, 'tool_calls', 1);
  agent.end(endMs);
}
