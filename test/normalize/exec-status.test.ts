/**
 * How a tool's execution ended, table-driven: status codes, gRPC codes, error texts, and the tool
 * spans of each dialect with their own error fields (span status, error.type, http status, exception
 * events, OpenInference / Vercel / Langfuse / Pydantic AI / LiveKit / BeeAI / Flue), through the real
 * readers; and which spans count as a tool's HTTP/RPC client children.
 */
import { describe, expect, it } from 'vitest';
import type { ExecutionStatus, Span } from '../../src/model.js';
import {
  downstreamStatus,
  grpcStatusClass,
  httpStatusClass,
  spanStatus,
  textStatus,
  worse,
} from '../../src/normalize/exec-status.js';
import { builtinDialects } from '../../src/normalize/dialects.js';
import { loadDialectFixtures } from '../helpers/dialect-fixtures.js';
import { makeEvent, makeSpan } from '../helpers/spans.js';

describe('status codes', () => {
  it.each([
    [200, undefined],
    [302, undefined],
    [400, 'client_error'],
    [401, 'client_error'],
    [404, 'client_error'],
    [408, 'server_error'], // a timeout, not a wrong call
    [409, 'client_error'],
    [422, 'client_error'],
    [429, 'server_error'], // throttled: the tool's capacity, not the call
    [500, 'server_error'],
    [503, 'server_error'],
    [600, undefined],
  ])('HTTP %i → %s', (code, want) => expect(httpStatusClass(code)).toBe(want));

  it.each([
    [0, undefined],
    [3, 'client_error'],
    [5, 'client_error'],
    [4, 'server_error'],
    [14, 'server_error'],
    [2, 'error'],
    ['INVALID_ARGUMENT', 'client_error'],
    ['unavailable', 'server_error'],
    ['NO_SUCH_CODE', undefined],
  ] as const)('gRPC %s → %s', (code, want) => expect(grpcStatusClass(code)).toBe(want));

  it.each([
    ['404', 'client_error'],
    ['503', 'server_error'],
    ['Request failed with status code 422', 'client_error'], // axios
    ['HTTP 503 Service Unavailable', 'server_error'],
    ['HTTP/1.1 404 Not Found', 'client_error'],
    ['404 Client Error: Not Found for url: https://api.example/x', 'client_error'], // python-requests
    ["Client error '400 Bad Request' for url 'https://api.example/x'", 'client_error'], // httpx
    ["Server error '502 Bad Gateway' for url 'https://api.example/x'", 'server_error'],
    ['status: 409', 'client_error'],
    ['TimeoutError', 'server_error'],
    ['httpx.ReadTimeout', 'server_error'],
    ['context deadline exceeded', 'server_error'],
    ['connect ECONNREFUSED 127.0.0.1:8080', 'server_error'],
    ['pydantic_ai.exceptions.ToolRetryError', 'client_error'],
    ['ModelRetry: city not found, ask again', 'client_error'],
    ['ValueError', undefined],
    ['order 404 of 1200 processed', undefined], // a number is not a status unless phrased as one
    ['', undefined],
  ])('%j → %s', (text, want) => expect(textStatus(text)).toBe(want));

  it('worse: the more telling status wins, whatever the order', () => {
    const all: ExecutionStatus[] = ['ok', 'error', 'server_error', 'client_error'];
    for (const a of all) for (const b of all) expect(worse(a, b)).toBe(worse(b, a));
    expect(worse('server_error', 'client_error')).toBe('client_error');
    expect(worse('ok', 'error')).toBe('error');
  });
});

describe('a span’s own status', () => {
  it.each<[string, Partial<Span>, Record<string, unknown>, ExecutionStatus, string | undefined]>([
    ['unset status, no error attributes', {}, {}, 'ok', undefined],
    ['ERROR, nothing says how', { statusCode: 2, statusMessage: 'boom' }, {}, 'error', 'boom'],
    ['error.type is a status code', {}, { 'error.type': '404' }, 'client_error', '404'],
    [
      'http.response.status_code 503 on the tool span, status unset',
      {},
      { 'http.response.status_code': 503 },
      'server_error',
      undefined,
    ],
    ['older http.status_code as a string', { statusCode: 2 }, { 'http.status_code': '422' }, 'client_error', undefined],
    ['rpc.grpc.status_code 3', { statusCode: 2 }, { 'rpc.grpc.status_code': 3 }, 'client_error', undefined],
    [
      'the status message names the code',
      { statusCode: 2, statusMessage: 'Request failed with status code 400' },
      {},
      'client_error',
      'Request failed with status code 400',
    ],
    [
      'error.type wins over the message for the text kept',
      { statusCode: 2, statusMessage: 'took too long' },
      { 'error.type': 'TimeoutError' },
      'server_error',
      'TimeoutError',
    ],
    [
      'HTTP 200 with ERROR: the tool failed after its call',
      { statusCode: 2, statusMessage: 'parse error' },
      { 'http.response.status_code': 200 },
      'error',
      'parse error',
    ],
  ])('%s', (_n, over, attributes, status, errorType) => {
    const r = spanStatus(makeSpan(attributes, over));
    expect(r.status).toBe(status);
    expect(r.errorType).toBe(errorType);
  });

  it('reads exception events when the status and error.type say nothing more', () => {
    const span = makeSpan(
      {},
      {
        statusCode: 2,
        events: [
          makeEvent('exception', {
            'exception.type': 'httpx.HTTPStatusError',
            'exception.message': "Client error '404 Not Found' for url 'https://x'",
          }),
        ],
      },
    );
    expect(spanStatus(span).status).toBe('client_error');
  });
});

describe('tool spans of every dialect, through the readers', () => {
  const dialects = builtinDialects();
  const read = (attributes: Record<string, unknown>, over: Partial<Span> = {}) => {
    const f = dialects.normalizeSpan(makeSpan(attributes, { kind: 1, ...over }));
    return [f?.dialect, f?.execution?.status];
  };

  it.each<[string, Record<string, unknown>, Partial<Span>, [string, ExecutionStatus]]>([
    [
      'OTel GenAI execute_tool, error.type = status code',
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'error.type': '422' },
      { statusCode: 2 },
      ['genai', 'client_error'],
    ],
    [
      'OpenInference TOOL with an exception event',
      { 'openinference.span.kind': 'TOOL', 'tool.name': 'get_weather', 'input.value': '{"city":"Oslo"}' },
      {
        statusCode: 2,
        events: [
          makeEvent('exception', {
            'exception.type': 'requests.exceptions.HTTPError',
            'exception.message': '503 Server Error: Service Unavailable for url: https://w',
          }),
        ],
      },
      ['openinference', 'server_error'],
    ],
    [
      'Vercel AI SDK ai.toolCall: ERROR with the error message',
      {
        'operation.name': 'ai.toolCall',
        'ai.operationId': 'ai.toolCall',
        'ai.toolCall.name': 'weather',
        'ai.toolCall.id': 'c1',
        'ai.toolCall.args': '{"city":"Oslo"}',
      },
      { name: 'ai.toolCall', statusCode: 2, statusMessage: 'Request failed with status code 404' },
      ['vercel-ai', 'client_error'],
    ],
    [
      'Pydantic AI running tool: ModelRetry recorded as ToolRetryError',
      {
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'c1',
        tool_arguments: '{"city":"Oslo"}',
        'logfire.msg': 'running tool: get_weather',
      },
      {
        name: 'running tool',
        statusCode: 2,
        events: [
          makeEvent('exception', {
            'exception.type': 'pydantic_ai.exceptions.ToolRetryError',
            'exception.message': 'city not found',
          }),
        ],
      },
      ['genai', 'client_error'],
    ],
    [
      'Langfuse SDK tool observation: level ERROR + status_message',
      {
        'langfuse.observation.type': 'tool',
        'langfuse.observation.input': '{"city":"Oslo"}',
        'langfuse.observation.level': 'ERROR',
        'langfuse.observation.status_message': 'HTTP 429 Too Many Requests',
      },
      { name: 'get_weather' },
      ['langfuse-otel', 'server_error'],
    ],
    [
      'LiveKit function_tool: is_error, the output says 404',
      {
        'lk.function_tool.name': 'get_weather',
        'lk.function_tool.id': 'c1',
        'lk.function_tool.arguments': '{"city":"Oslo"}',
        'lk.function_tool.output': 'Client error 404 Not Found: status code 404',
        'lk.function_tool.is_error': true,
      },
      { name: 'function_tool' },
      ['livekit', 'client_error'],
    ],
    [
      'LiveKit function_tool: is_error, nothing says how',
      {
        'lk.function_tool.name': 'get_weather',
        'lk.function_tool.id': 'c1',
        'lk.function_tool.output': 'it broke',
        'lk.function_tool.is_error': true,
      },
      { name: 'function_tool' },
      ['livekit', 'error'],
    ],
    [
      'BeeAI error event span',
      {
        'openinference.span.kind': 'TOOL',
        name: 'error',
        target: 'tool.search.wikipedia.error',
        'output.value': 'connect ETIMEDOUT',
      },
      {},
      ['openinference', 'server_error'],
    ],
    [
      'Flue < 2 tool span with an error status',
      { 'flue.tool.name': 'bash', 'flue.tool.call_id': 't1', 'flue.tool.arguments': '{"cmd":"ls"}' },
      { statusCode: 2, statusMessage: 'missing command' },
      ['flue', 'error'],
    ],
  ])('%s', (_n, attributes, over, want) => {
    expect(read(attributes, over)).toEqual(want);
  });

  it('the framework fixtures’ failing tool spans: failed, and nobody said how', () => {
    const failing: string[] = [];
    for (const f of loadDialectFixtures()) {
      for (const s of f.spans) {
        const e = dialects.normalizeSpan(s)?.execution;
        if (e && e.status !== 'ok') failing.push(`${f.name}:${e.name || '(unnamed)'}:${e.status}`);
      }
    }
    expect(failing.sort()).toEqual([
      'flue:bash:error',
      'strands:get_weather:error',
      'vercel-ai-processors:(unnamed):error',
    ]);
  });
});

describe('HTTP and RPC client children', () => {
  const child = (attributes: Record<string, unknown>, over: Partial<Span> = {}) =>
    downstreamStatus(makeSpan(attributes, { kind: 3, parentSpanId: 'aaaaaaaaaaaaaaaa', ...over }));

  it.each<[string, Record<string, unknown>, Partial<Span>, ExecutionStatus | undefined]>([
    [
      'CLIENT, 404',
      { 'http.request.method': 'GET', 'http.response.status_code': 404 },
      { statusCode: 2 },
      'client_error',
    ],
    ['CLIENT, 200', { 'http.request.method': 'GET', 'http.response.status_code': 200 }, {}, undefined],
    [
      'CLIENT, older conventions, 502',
      { 'http.method': 'POST', 'http.status_code': 502 },
      { statusCode: 2 },
      'server_error',
    ],
    [
      'CLIENT, connection refused before any answer',
      { 'http.request.method': 'GET', 'error.type': 'ECONNREFUSED' },
      { statusCode: 2 },
      'server_error',
    ],
    [
      'CLIENT, gRPC UNAVAILABLE',
      { 'rpc.system': 'grpc', 'rpc.grpc.status_code': 14 },
      { statusCode: 2 },
      'server_error',
    ],
    [
      'SERVER span with 404 (not a call the tool made)',
      { 'http.request.method': 'GET', 'http.response.status_code': 404 },
      { kind: 2 },
      undefined,
    ],
    ['CLIENT without HTTP or RPC attributes', { 'db.system': 'postgresql' }, { statusCode: 2 }, undefined],
    [
      'a root span',
      { 'http.request.method': 'GET', 'http.response.status_code': 500 },
      { parentSpanId: '' },
      undefined,
    ],
  ])('%s → %s', (_n, attributes, over, want) => expect(child(attributes, over)).toBe(want));
});
