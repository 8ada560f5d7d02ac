/**
 * Every framework fixture (test/fixtures/dialects/<framework>/, built from the emitter's own source
 * or recorded output — see each README) through the readers: what each span is read as, and that
 * every trace is counted exactly as expected — in the order the spans were written, and in the
 * reverse order with every span in its own export batch (tool spans before their proposals).
 */
import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { loadDialectFixtures, runBatches, spansOf, tally } from '../helpers/dialect-fixtures.js';
import { sighting } from './dialect-sightings.js';

const dialects = builtinDialects();

/** Per fixture, in span order: `span name (dialect/role) P[proposals] E[execution] S[summary] O[offered, * = with schema]`. */
const SIGHTINGS: Record<string, string[]> = {
  agno: [
    'OpenAIChat.invoke (openinference/model) P[duckduckgo_search#call_VybxG748CQId8Xxo6wb2pWy1:{"query":"currently trending on Twitter"}] O[duckduckgo_search*,duckduckgo_news*]',
    'duckduckgo_search (openinference/tool) E[duckduckgo_search:{"query": "currently trending on Twitter"}:ok]',
    'OpenAIChat.invoke (openinference/model) O[duckduckgo_search*,duckduckgo_news*]',
  ],
  beeai: [
    'tool.search.wikipedia.success-12 (openinference/tool) E[search.wikipedia:{"query":"Tourism in Barcelona","full_text":false}:ok]',
  ],
  flue: [
    'chat claude-sonnet-4 (flue/model) P[bash#toolu_01:{"command":"pwd"} bash#toolu_02:{"cmd":"ls"}] O[bash*]',
    'flue.tool bash (flue/tool) E[bash#toolu_01:{"command":"pwd"}:ok]',
    'flue.tool bash (flue/tool) E[bash#toolu_02:{"cmd":"ls"}:error]',
    'chat claude-sonnet-4 (genai/model) P[lookup#toolu_11:["not","an","object"]] O[lookup*]',
    'execute_tool lookup (flue/tool) E[lookup#toolu_11:["not","an","object"]:ok]',
  ],
  'google-adk': [
    'call_llm (openinference/model) P[say_hello:{}] O[say_hello]',
    'execute_tool say_hello (openinference/tool) E[say_hello#adk-8bd8dc65-717d-4102-858b-3a1dd6b75a00:{}:ok]',
    'call_llm (openinference/model) O[say_hello]',
  ],
  'google-adk-native': [
    'call_llm (google-adk/model) P[get_weather:{"city":"Oslo"} get_time:{"city":"Oslo","utc":"yes"}] O[get_weather*,get_time*]',
    'execute_tool get_weather (google-adk/tool) E[get_weather#adk-7f1c:{"city": "Oslo"}:ok]',
    'execute_tool get_time (google-adk/tool) E[get_time#adk-8a2d:{"city": "Oslo", "utc": "yes"}:ok]',
  ],
  koog: [
    'llm.chat (genai-legacy/model) P[HelloTool#call_n2HaWg9KFP0BZDqXv6G4b3nJ:{"name": "Bob"} ByeTool#call_dOeEHJDI0liHrCdFWTpkTsuO:{"name": "Bob"}]',
    'tool.ByeTool (genai/tool) E[ByeTool#call_dOeEHJDI0liHrCdFWTpkTsuO:{"name":"Bob"}:ok]',
    'tool.HelloTool (genai/tool) E[HelloTool#call_n2HaWg9KFP0BZDqXv6G4b3nJ:{"name":"Bob"}:ok]',
  ],
  'langfuse-sdk-js': [
    'ChatOpenAI (langfuse-otel/model) P[get_weather#call_VEZJgIQLgzcb80IIyQJm7JCi:{"city":"San Francisco"}]',
  ],
  'langfuse-sdk-python': [
    'ChatOpenAI (langfuse-otel/model) P[Web-Search#call_1oGK863sxQHlPreFhDdEs3yl:{"query":"example"}] O[Web-Search*]',
    'ChatOpenAI (langfuse-otel/model) O[Web-Search*]',
  ],
  livekit: [
    'llm_node (livekit/model) P[get_weather#call_lk1:{"city": "Oslo"} book_table#call_lk2:{"city": "Oslo"}] O[get_weather]',
    'llm_request (livekit/model) S[get_weather#call_lk1 book_table#call_lk2]',
    'function_tool (livekit/tool) E[get_weather#call_lk1:{"city": "Oslo"}:ok]',
    'llm_node (livekit/model) P[get_weather#call_lk1:{"city": "Oslo"} book_table#call_lk2:{"city": "Oslo"}] O[get_weather]',
    'llm_request (livekit/model) S[get_weather#call_lk1 book_table#call_lk2]',
    'function_tool (livekit/tool) E[get_weather#call_lk1:{"city": "Oslo"}:ok]',
  ],
  'microsoft-agent-framework': [
    'invoke_agent 171105b7-59dd-49c0-9677-0b9 (genai/agent) O[get_weather*]',
    'chat gpt-5-mini (genai/model) P[get_weather#call_CwaJHuXTm9dmHFQPlVbqyzJ0:{"location":"Tokyo, Japan"}] O[get_weather*]',
    'get_weather (genai/tool) E[get_weather#call_CwaJHuXTm9dmHFQPlVbqyzJ0:{"location":"Tokyo, Japan"}:ok]',
    'chat gpt-5-mini (genai/model) O[get_weather*]',
  ],
  mlflow: [
    'Completions (mlflow/model) P[get_weather#call_ml1:{"city":"Oslo"} get_weather#call_ml2:{"city":"Oslo"] O[get_weather*]',
    'get_weather (mlflow/tool) E[get_weather:{"city":"Oslo"}:ok]',
  ],
  'openai-agents': [
    'response (openinference/model) P[get_weather#call_Kud0j0DxWSmLzv9W5m6qVqXn:{"city":"Tokyo"}] O[get_weather*]',
    'get_weather (openinference/tool) E[get_weather:{"city":"Tokyo"}:ok]',
    'response (openinference/model) O[get_weather*]',
  ],
  openinference: [
    'bedrock.converse (openinference/model) P[get_weather#tooluse_b1:{"city":"Oslo"} get_weather#tooluse_b2:{"city":4}] O[get_weather*]',
    'ChatOpenAI (openinference/model) P[get_weather:{"town": "Oslo"}] O[get_weather*]',
    'Weather Tool.run (openinference/tool) E[Weather Tool:{"args":[],"city":"Oslo"}:ok] O[Weather Tool*]',
    'OpenAI.chat (openinference/model) P[multiply#call_li1:{"a": 3, "b": 4}] O[multiply*]',
    'FunctionTool.acall (openinference/tool) E[multiply:{"a":3,"b":4}:ok] O[multiply*]',
    'ai.generateText.doGenerate (vercel-ai/model) P[weather#call_v1:{"city":"Oslo"}] O[weather*]',
    'ai.toolCall (vercel-ai/tool) E[weather#call_v1:{"city":"Oslo"}:ok]',
    'ai.toolCall (vercel-ai/tool) E[weather:{"query":"cake type"}:ok]',
  ],
  openllmetry: [
    'openai.chat (genai-legacy/model) P[get_weather#call_o1:{"city":"Oslo"} get_weather#call_o2:{"city": "Oslo"] O[get_weather*]',
    'get_weather.tool (genai-legacy/tool) E[get_weather:{"city":"Oslo"}:ok]',
  ],
  'pydantic-ai': [
    'joke_agent run (pydantic-ai/agent) S[get_pun_suggestion#call_X0OSgjUukT5inyEQvuZQnHrk get_dad_joke_suggestion#call_WxZcCvSDhGT4RJHlcU01k10x get_one_liner_suggestion#call_aRaObiWKKt6GzgDkkUl3bu1Q]',
    'chat gpt-4o-mini (pydantic-ai/model) P[get_pun_suggestion#call_X0OSgjUukT5inyEQvuZQnHrk:{"topic":"programming"} get_dad_joke_suggestion#call_WxZcCvSDhGT4RJHlcU01k10x:{"topic":"programming"} get_one_liner_suggestion#call_aRaObiWKKt6GzgDkkUl3bu1Q:{"topic":"programming"}] O[get_pun_suggestion*,get_dad_joke_suggestion*,get_one_liner_suggestion*,get_car_joke_suggestion*,get_tree_joke_suggestion*]',
    'running tool: get_pun_suggestion (genai/tool) E[get_pun_suggestion#call_X0OSgjUukT5inyEQvuZQnHrk:{"topic":"programming"}:ok]',
    'running tool: get_dad_joke_suggestion (genai/tool) E[get_dad_joke_suggestion#call_WxZcCvSDhGT4RJHlcU01k10x:{"topic":"programming"}:ok]',
    'running tool: get_one_liner_suggestion (genai/tool) E[get_one_liner_suggestion#call_aRaObiWKKt6GzgDkkUl3bu1Q:{"topic":"programming"}:ok]',
    'chat gpt-4o-mini (pydantic-ai/model) O[get_pun_suggestion*,get_dad_joke_suggestion*,get_one_liner_suggestion*,get_car_joke_suggestion*,get_tree_joke_suggestion*]',
    'chat gpt-4o-mini (pydantic-ai/model) O[get_pun_suggestion*,get_dad_joke_suggestion*,get_one_liner_suggestion*,get_car_joke_suggestion*,get_tree_joke_suggestion*]',
    'evaluator_agent run (pydantic-ai/agent) S[final_result#call_ZuzwalMMtvv9BC6xlVe3fiBP]',
    'chat gpt-4o-mini (pydantic-ai/model) P[final_result#call_ZuzwalMMtvv9BC6xlVe3fiBP:{"quality":"good","feedback":"The joke is clever and plays on the double meaning of \'bugs\' in programming and nature. It\'s relatable for those in the tech field, making it effective. To enhance it, consider adding a punchline that builds on the setup for an even stronger impact."}] O[final_result*]',
  ],
  'semantic-kernel': [
    'execute_tool WeatherPlugin-get_weather (genai/tool) E[WeatherPlugin-get_weather#call_sk1:{"city": "Oslo"}:ok]',
    'chat.completions gpt-4o (genai-legacy/model) P[WeatherPlugin-get_weather#call_net1:{"city":"Oslo"}]',
    'execute_tool WeatherPlugin-get_weather (genai/tool) E[WeatherPlugin-get_weather#call_net1:-:ok]',
  ],
  strands: [
    'invoke_agent weather_agent (genai-legacy/agent) O[get_weather*]',
    'chat (genai-legacy/model) P[get_weather#tooluse_a1:{"city":"Oslo"} get_weather#tooluse_a2:{"town":"Rome"}]',
    'execute_tool get_weather (genai-legacy/tool) E[get_weather#tooluse_a1:{"city":"Oslo"}:ok]',
    'execute_tool get_weather (genai-legacy/tool) E[get_weather#tooluse_a2:{"town":"Rome"}:error]',
    'chat (genai/model) P[get_weather#tooluse_b1:{"city":"Oslo"}]',
    'execute_tool get_weather (genai/tool) E[get_weather#tooluse_b1:{"city":"Oslo"}:ok]',
  ],
  'vercel-ai': [
    'ai.generateText.doGenerate (vercel-ai/model) P[getWeather#call_DgKARp7a7IhJPDczfifMp6Ra:{"location":"San Francisco"}] O[getWeather*]',
    'getWeather (vercel-ai/tool) E[getWeather#call_DgKARp7a7IhJPDczfifMp6Ra:{"location":"San Francisco"}:ok]',
  ],
  'vercel-ai-processors': [
    'ai.streamText.doStream (vercel-ai/model) P[weather#call_s1:{"city":"Oslo"} weather#call_s2:{"town":"Oslo"}] O[weather*]',
    'ai.toolCall (vercel-ai/tool) E[weather#call_s1:{"city":"Oslo"}:ok]',
    'ai.toolCall (vercel-ai/tool) E[#call_s2:{"town":"Oslo"}:error]',
    'ai.toolCall (vercel-ai/tool) E[:{"q":1}:ok]',
  ],
};

const fixtures = loadDialectFixtures();

describe('framework fixtures through the readers', () => {
  it('covers every fixture directory', () => {
    expect(fixtures.map((f) => f.name)).toEqual(Object.keys(SIGHTINGS).sort());
  });

  it.each(fixtures)('$name: what each span is read as', (f) => {
    const got = f.spans.flatMap((s) => {
      const facts = dialects.normalizeSpan(s);
      const line = facts ? sighting(s.name, facts) : undefined;
      return line === undefined ? [] : [line];
    });
    expect(got).toEqual(SIGHTINGS[f.name]);
  });

  const traces = fixtures.flatMap((f) => f.traces.map((t) => ({ fixture: f.name, f, t })));

  it.each(traces)('$fixture $t.traceId: counted exactly, in order', async ({ f, t }) => {
    const run = await runBatches([spansOf(f, t.traceId)]);
    expect(tally(run.calls)).toEqual(tally(t.calls));
    expect(run.executions).toBe(t.executions);
  });

  it.each(traces)('$fixture $t.traceId: counted exactly, reversed, one span per batch', async ({ f, t }) => {
    const run = await runBatches(
      spansOf(f, t.traceId)
        .reverse()
        .map((s) => [s]),
    );
    expect(tally(run.calls)).toEqual(tally(t.calls));
    expect(run.executions).toBe(t.executions);
  });
});
