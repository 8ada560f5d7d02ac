/**
 * tool_error: a tool span that says it succeeded but whose result reports a failure. Table over the
 * MCP CallToolResult shapes (the MCP specification's schema: `content` blocks, `structuredContent`,
 * `isError`), common envelopes, and the real tool results of every dialect fixture and the public
 * OpenTelemetry GenAI execute_tool span — none of which is an error, so none may be read as one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { spanStatus } from '../../src/normalize/exec-status.js';
import {
  DEFAULT_TOOL_ERROR_RULES,
  parseToolErrorRule,
  toolErrorOf,
  type ToolErrorRule,
} from '../../src/normalize/tool-error.js';
import { decodeJson } from '../../src/sources/otlp/decode-json.js';
import { makeSpan, readFixture } from '../helpers/spans.js';

const rules = (texts: readonly string[]): ToolErrorRule[] =>
  texts.map((t) => {
    const r = parseToolErrorRule(t);
    if (typeof r === 'string') throw new Error(r);
    return r;
  });
const defaults = rules(DEFAULT_TOOL_ERROR_RULES);

describe('toolErrorOf with the default rules', () => {
  const cases: [string, string | undefined, { rule: string; errorType: string } | undefined][] = [
    [
      'MCP isError with a text block',
      '{"content":[{"type":"text","text":"Order 123 not found"}],"isError":true}',
      { rule: 'isError=true', errorType: 'isError' },
    ],
    [
      'MCP isError with structured content',
      '{"content":[{"type":"text","text":"{\\"code\\":\\"RATE_LIMITED\\"}"}],"structuredContent":{"code":"RATE_LIMITED"},"isError":true}',
      { rule: 'isError=true', errorType: 'isError' },
    ],
    ['MCP success', '{"content":[{"type":"text","text":"4°C"}],"isError":false}', undefined],
    ['MCP success without isError', '{"content":[{"type":"text","text":"error: none"}]}', undefined],
    ['ok false with a code', '{"ok":false,"code":"not_found"}', { rule: 'ok=false', errorType: 'not_found' }],
    ['ok true', '{"ok":true,"error":null}', undefined],
    [
      'success false',
      ' {"success": false, "message": "card declined"}',
      { rule: 'success=false', errorType: 'success' },
    ],
    [
      'ADK status error',
      '{"status": "error", "error_message": "Weather information for \'Paris\' is not available."}',
      { rule: 'status="error"', errorType: 'status' },
    ],
    [
      'error object with a code',
      '{"error":{"code":404,"message":"no such order"}}',
      { rule: 'error', errorType: '404' },
    ],
    ['error identifier', '{"error":"invalid_request"}', { rule: 'error', errorType: 'invalid_request' }],
    ['error sentence', '{"error":"Order 123 was not found"}', { rule: 'error', errorType: 'error' }],
    ['error empty', '{"error":"","data":[1]}', undefined],
    ['error empty object', '{"error":{},"data":[1]}', undefined],
    ['errors key is not error', '{"errors_seen":3}', undefined],
    ['an array', '[{"error":"x"}]', undefined],
    ['plain text', 'error: the tool failed', undefined],
    ['broken JSON', '{"isError": tru', undefined],
    ['nothing', undefined, undefined],
  ];
  it.each(cases)('%s', (_, result, expected) => {
    expect(toolErrorOf(result, defaults)).toEqual(expected);
  });

  it('reads no result over 64 KiB (an envelope is small)', () => {
    const big = `{"isError":true,"pad":"${'x'.repeat(70_000)}"}`;
    expect(toolErrorOf(big, defaults)).toBeUndefined();
  });
});

describe('configured rules', () => {
  it('a dotted path and a string value; none: nothing is a tool_error', () => {
    const langchain = '{"lc":1,"type":"constructor","kwargs":{"content":"boom","status":"error"}}';
    expect(toolErrorOf(langchain, defaults)).toBeUndefined();
    expect(toolErrorOf(langchain, rules(['kwargs.status="error"']))).toEqual({
      rule: 'kwargs.status="error"',
      errorType: 'kwargs',
    });
    expect(toolErrorOf('{"isError":true}', [])).toBeUndefined();
  });
  it.each([
    ['a=', 'JSON literal'],
    ['a={"b":1}', 'literal'],
    ['bad path', 'path'],
    ['', 'path'],
  ])('%j is refused: %s', (text, words) => {
    const r = parseToolErrorRule(text);
    expect(typeof r).toBe('string');
    expect(r).toContain(words);
  });
});

describe('the text pre-filter', () => {
  // What toolErrorOf answered before it skipped any parse: every result that names a rule's key parsed.
  const reference = (result: string, rs: readonly ToolErrorRule[]) => {
    if (!rs.some((r) => result.includes(r.probe)) || !result.trimStart().startsWith('{')) return undefined;
    let v: unknown;
    try {
      v = JSON.parse(result);
    } catch {
      return undefined;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    return toolErrorOf(JSON.stringify(v), rs);
  };
  // Keys with `$` and `-` too: the pre-filter scans for every probe at once with one regular expression.
  const configured = rules([
    ...DEFAULT_TOOL_ERROR_RULES,
    'code=500',
    'state=null',
    'result.done=false',
    'msg="a\\"b"',
    'p$q=true',
    '$x-y.z=1',
  ]);
  it.each([
    '{"status":"shipped","items":2}',
    '{"status":"error"}',
    '{"status":"\\u0065rror"}',
    '{"st\\u0061tus":"error","ok":true}',
    '{"ok":true,"note":"false"}',
    '{"ok":false}',
    '{"success":true,"isError":false}',
    '{"isError" : true}',
    '{"error":"","status":"ok"}',
    '{"error":{"code":"E42"}}',
    '{"code":5e2}',
    '{"code":500.0,"ok":1}',
    '{"state":null}',
    '{"result":{"done":false}}',
    '{"msg":"a\\"b"}',
    '{"msg":"ab","status":"error"',
    '{"p$q":true}',
    '{"pq":true,"p$":true}',
    '{"$x-y":{"z":1}}',
    '{"x-y":{"z":1}}',
  ])('%s: the same answer as parsing it', (result) => {
    expect(toolErrorOf(result, configured)).toEqual(reference(result, configured));
    expect(toolErrorOf(result, defaults)).toEqual(reference(result, defaults));
  });
  it('reads escaped values and numbers written in other forms', () => {
    expect(toolErrorOf('{"status":"\\u0065rror"}', defaults)?.rule).toBe('status="error"');
    expect(toolErrorOf('{"code":5e2}', configured)?.rule).toBe('code=500');
    expect(toolErrorOf('{"msg":"a\\"b"}', configured)?.rule).toBe('msg="a\\"b"');
    expect(toolErrorOf('{"p$q":true}', configured)?.rule).toBe('p$q=true');
    expect(toolErrorOf('{"$x-y":{"z":1}}', configured)?.rule).toBe('$x-y.z=1');
  });
});

describe('real tool results', () => {
  it('no execution of any dialect fixture is a tool_error (their results are successes)', () => {
    const dialects = builtinDialects();
    let results = 0;
    for (const dir of readdirSync('test/fixtures/dialects')) {
      let body: string;
      try {
        body = readFileSync(`test/fixtures/dialects/${dir}/trace.json`, 'utf8');
      } catch {
        continue;
      }
      const decoded = decodeJson(body);
      if (!decoded.ok) throw new Error(`${dir}: ${decoded.message}`);
      for (const s of decoded.spans) {
        const e = dialects.normalizeSpan(s)?.execution;
        if (!e?.result) continue;
        results++;
        expect(toolErrorOf(e.result, defaults), `${dir}: ${e.result.slice(0, 80)}`).toBeUndefined();
      }
    }
    expect(results).toBeGreaterThan(20);
  });

  it('the public GenAI execute_tool span: its success is none, the same span with an ADK error result is one', () => {
    const attrs = readFixture(
      '../../../shared/fixtures/public/openinference-genai/otel_genai_tool_execution_span.json',
    );
    const read = (a: Record<string, unknown>) => builtinDialects().normalizeSpan(makeSpan(a))?.execution;
    const ok = read(attrs);
    expect(ok?.status).toBe('ok');
    expect(toolErrorOf(ok?.result, defaults)).toBeUndefined();
    const failed = read({ ...attrs, output: '{"status": "error", "error_message": "no report for Atlantis"}' });
    expect(failed?.status).toBe('ok'); // the span says nothing failed …
    expect(toolErrorOf(failed?.result, defaults)?.rule).toBe('status="error"'); // … its result does
  });

  it('MCP instrumentations that mark isError on the span: error.type tool_error, mcp.tool.result.is_error', () => {
    expect(spanStatus(makeSpan({ 'error.type': 'tool_error' }, { statusCode: 2 }))).toEqual({
      status: 'tool_error',
      errorType: 'tool_error',
    });
    expect(spanStatus(makeSpan({ 'mcp.tool.result.is_error': true }))).toEqual({
      status: 'tool_error',
      errorType: 'tool_error',
    });
    expect(spanStatus(makeSpan({ 'mcp.tool.result.is_error': false })).status).toBe('ok');
  });
});
