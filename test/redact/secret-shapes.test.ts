/**
 * Issue 17, finding 5: the secret shapes an outside campaign found stored in clear under the default
 * `store.redact_arguments: secrets`. Each is planted as a JSON argument (the parsed path) and inside
 * arguments that are not valid JSON (the text path), in the user's message and in the model's turn,
 * then looked for everywhere a value is kept or sent: the stored failure records (SQL), GET
 * /api/failures, GET /api/export/cases, the judge's request (a local OpenAI-compatible server) and
 * the records of `toolwatch eval run` (both providers). Ordinary arguments stay as sent.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redact/redact.js';
import { isSecretKey } from '../../src/redact/secret-keys.js';
import { startAnthropicMessages } from '../fakes/anthropic-messages.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai.js';
import { call } from '../fakes/scripted.js';
import { evalCli, tempDir, writeSuite } from '../eval/helpers.js';
import { startToolwatch, type Harness } from '../helpers/harness.js';

const PGP = [
  '-----BEGIN PGP PRIVATE KEY BLOCK-----',
  '',
  'lQOYBF0011PgpBodyOfTheKeyXyZ',
  '=Ab12',
  '-----END PGP PRIVATE KEY BLOCK-----',
].join('\n');

/** [what, key, value, the fragments that must never be seen]. Keyed secrets carry no shape of their own. */
const PLANTED: [string, string, string, string[]][] = [
  ['db_password', 'db_password', 'Db-Pa55-0001', ['Db-Pa55-0001']],
  ['newPassword', 'newPassword', 'New-Pa55-0002', ['New-Pa55-0002']],
  ['OPENAI_API_KEY', 'OPENAI_API_KEY', 'openai-plain-0003', ['openai-plain-0003']],
  ['X-Api-Key', 'X-Api-Key', 'xapikey-plain-0004', ['xapikey-plain-0004']],
  ['token', 'token', 'tok-plain-0005', ['tok-plain-0005']],
  ['secret', 'secret', 'sec-plain-0006', ['sec-plain-0006']],
  ['github_token', 'github_token', 'ghtok-plain-0007', ['ghtok-plain-0007']],
  ['credentials', 'credentials', 'creds-plain-0008', ['creds-plain-0008']],
  ['a postgres DSN', 'dsn', 'postgres://app:Dsn-Pa55-0009@db.internal:5432/app', ['Dsn-Pa55-0009']],
  ['?token= in a URL', 'callback', 'https://api.example.com/v1/items?token=QueryTok0010&page=2', ['QueryTok0010']],
  [
    'a Slack webhook URL',
    'notify',
    'https://hooks.slack.com/services/T0SLACK11/B0SLACK11/Hook0011Secret',
    ['Hook0011Secret', 'T0SLACK11'],
  ],
  ['a PGP private key block', 'material', PGP, ['lQOYBF0011PgpBody']],
  [
    'an AWS secret key',
    'blob',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ],
];

/** Ordinary arguments beside them: untouched. */
const ORDINARY = {
  max_tokens: 5,
  token_count: 7,
  docs: 'https://example.com/docs?page=2&q=weather',
  city: 'Brno',
  page_token: 'p2',
};

const planted = Object.fromEntries(PLANTED.map(([, k, v]) => [k, v]));
const PARSED = JSON.stringify({ ...planted, ...ORDINARY });
/** Cut short: not JSON, so the text path decides. */
const TEXT = PARSED.slice(0, -1);
/** The same pairs as a person (or a log line) writes them. */
const PROSE = PLANTED.map(([, k, v]) => `${k}: ${v}`).join('\n');

/** Every planted fragment, also JSON-escaped (how it would appear inside a stored JSON string). */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const [what, , , fragments] of PLANTED)
    for (const f of fragments)
      if (text.includes(f) || text.includes(JSON.stringify(f).slice(1, -1))) found.push(`${what}: ${f}`);
  return found;
}

describe('the redactor on its own: every planted secret, parsed and as text', () => {
  const r = createRedactor({ fields: [], patterns: [], level: 'secrets' });
  it.each(PLANTED)('%s', (_, key, value, fragments) => {
    const forms = {
      parsed: r.jsonText(JSON.stringify({ [key]: value, ...ORDINARY })),
      text: r.jsonText(`{"${key}": ${JSON.stringify(value)}, "max_tokens": 5`),
      prose: r.text(`${key}: ${value}`),
      nested: r.jsonText(JSON.stringify({ request: { headers: [{ name: key, value }], env: [[key, value]] } })),
    };
    for (const [form, out] of Object.entries(forms)) for (const f of fragments) expect(out, form).not.toContain(f);
    expect(JSON.parse(forms.parsed)).toMatchObject(ORDINARY);
  });

  it('masks by the key, not its spelling; leaves keys that only describe a secret', () => {
    const secret = [
      'db_password',
      'newPassword',
      'OPENAI_API_KEY',
      'X-Api-Key',
      'APIKey',
      'accessToken',
      'client_secret',
    ];
    const plain = [
      'max_tokens',
      'token_count',
      'prompt_tokens',
      'page_token',
      'secret_name',
      'api_key_env',
      'key',
      'author',
    ];
    expect(secret.filter((k) => !isSecretKey(k))).toEqual([]);
    expect(plain.filter((k) => isSecretKey(k))).toEqual([]);
  });

  it('an Authorization header with a short token: scheme and token both go', () => {
    expect(r.text('Authorization: Bearer abc123\nX-Other: 1')).toBe('Authorization: [SECRET]\nX-Other: 1');
    expect(r.text('authorization=Basic dXNl')).toBe('authorization=[SECRET]');
    // A quoted value runs to its own closing quote, the other quote inside it included.
    expect(r.text(`{"password": "it's-a-s3cret", "x": 1`)).toBe(`{"password": "[SECRET]", "x": 1`);
    expect(r.text(`password='say "hi" twice'`)).toBe(`password='[SECRET]'`);
  });

  it('leaves ordinary values alone', () => {
    const ordinary = [
      'max_tokens: 5, token_count=7, prompt_tokens: 12',
      'see https://example.com/docs?page=2&q=weather#top',
      'commit 0123456789abcdef0123456789abcdef01234567 on main',
      'ThisIsAVeryLongCamelCaseIdentifierName12 /usr/local/lib/node_modules/toolwatch/dist',
      'session_id: 9f1c, cache_key=user:42, secret_name: prod-db, api_key_env: OPENAI_API_KEY',
      '{"type": "object", "properties": {"password": {"type": "string"}}}',
    ];
    for (const t of ordinary) expect(r.text(t)).toBe(t);
    const args = JSON.stringify({
      ...ORDINARY,
      key: 'user:42',
      session_id: 'abc',
      password_required: true,
      token: null,
    });
    expect(r.jsonText(args)).toBe(args);
  });

  it('leaves a tool schema describing a password alone, masks credentials given as an object', () => {
    const out = JSON.parse(
      r.jsonText(
        JSON.stringify({
          parameters: { type: 'object', properties: { password: { type: 'string', description: 'the password' } } },
          credentials: { user: 'bob', pass: 'creds-obj-1' },
        }),
      ),
    );
    expect(out.parameters.properties.password).toEqual({ type: 'string', description: 'the password' });
    expect(out.credentials).toEqual({ user: '[SECRET]', pass: '[SECRET]' });
  });
});

/** One agent turn: the user's message and the model's calls (parsed, text) with their tool span. */
function request(traceId: string) {
  const now = Date.now();
  const span = (spanId: string, attributes: Record<string, string>) => ({
    traceId,
    spanId,
    name: 'span',
    startTimeUnixNano: String((now - 1000) * 1e6),
    endTimeUnixNano: String(now * 1e6),
    attributes: Object.entries(attributes).map(([key, stringValue]) => ({ key, value: { stringValue } })),
  });
  const schema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'secret-agent' } }] },
        scopeSpans: [
          {
            spans: [
              span('2000000000000001', {
                'gen_ai.operation.name': 'chat',
                'gen_ai.request.model': 'model-a',
                'gen_ai.tool.definitions': JSON.stringify([
                  { type: 'function', name: 'configure', parameters: schema },
                ]),
                'gen_ai.input.messages': JSON.stringify([
                  { role: 'user', parts: [{ type: 'text', content: `set it up:\n${PROSE}` }] },
                ]),
                'gen_ai.output.messages': JSON.stringify([
                  {
                    role: 'assistant',
                    parts: [
                      { type: 'text', content: `configuring with ${PROSE}` },
                      // SchemaMismatch (no id): stored with its arguments.
                      { type: 'tool_call', id: 'parsed', name: 'configure', arguments: PARSED },
                      // InvalidJson: stored, and the parse error quotes the input.
                      { type: 'tool_call', id: 'text', name: 'configure', arguments: TEXT },
                    ],
                  },
                ]),
              }),
              span('2000000000000002', {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': 'configure',
                'gen_ai.tool.call.id': 'parsed',
                'gen_ai.tool.call.arguments': PARSED,
                'gen_ai.tool.call.result': JSON.stringify({ ok: true, echo: planted }),
              }),
            ],
          },
        ],
      },
    ],
  };
}

describe('toolwatch: nothing planted is stored, served, exported or sent to the judge', () => {
  let tw: Harness;
  let judge: FakeOpenAI;
  const traceId = '5ec2e700000000000000000000000001';

  beforeAll(async () => {
    judge = await startFakeOpenAI();
    tw = await startToolwatch({
      env: { JUDGE_API_KEY: 'test-judge-key' },
      services: { judgeCompleteEveryMs: 0 },
      // The defaults (store.redact_arguments: secrets, no judge.redact fields): the built-in rules alone.
      config: { judge: { enabled: true, base_url: judge.baseUrl, model: 'j', sample_rate: 1, idle: '1ms' } },
    });
    const res = await tw.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(request(traceId)),
    });
    expect(res.statusCode, res.body).toBe(200);
    await new Promise((r) => setTimeout(r, 5)); // past judge.idle
    const summary = await tw.services.judge!.job!.run();
    expect(summary).toMatchObject({ judged: 1 });
  });
  afterAll(async () => {
    await tw?.close();
    await judge?.close();
  });

  it('stored failure records and trajectory steps (read with SQL)', async () => {
    const sql = tw.services.store.sql;
    const failures = await sql.all<{ call_id: string; arguments: string | null; message: string }>(
      'SELECT call_id, arguments, message FROM failures',
    );
    expect(failures.map((f) => f.call_id).sort()).toEqual(['parsed', 'text']);
    const steps = await sql.all<{ payload: string }>('SELECT payload FROM judge_steps');
    const contexts = await sql.all<Record<string, unknown>>('SELECT * FROM failure_contexts');
    expect(leaks(JSON.stringify([failures, steps, contexts]))).toEqual([]);
    // Ordinary arguments as sent, beside the masks.
    const parsed = JSON.parse(failures.find((f) => f.call_id === 'parsed')!.arguments!);
    expect(parsed).toMatchObject(ORDINARY);
    expect(parsed.db_password).toBe('[SECRET]');
    expect(failures.find((f) => f.call_id === 'text')!.arguments).toContain('"max_tokens":5');
  });

  it('GET /api/failures', async () => {
    const res = await tw.app.inject('/api/failures?service=secret-agent');
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).items).toHaveLength(2);
    expect(leaks(res.body)).toEqual([]);
    expect(res.body).toContain('https://example.com/docs?page=2&q=weather');
  });

  it('GET /api/trajectories/:id', async () => {
    const res = await tw.app.inject(`/api/trajectories/${traceId}`);
    expect(res.statusCode).toBe(200);
    expect(leaks(res.body)).toEqual([]);
  });

  it('GET /api/export/cases', async () => {
    const res = await tw.app.inject('/api/export/cases?since=1h');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('configure');
    expect(leaks(res.body)).toEqual([]);
  });

  it("the judge's request, as received", () => {
    expect(judge.received).toHaveLength(1);
    expect(leaks(judge.received[0]!.raw)).toEqual([]);
    expect(judge.received[0]!.raw).toContain('[SECRET]');
  });
});

describe('toolwatch eval: nothing planted in the records', () => {
  const tools = [
    {
      type: 'function',
      function: { name: 'configure', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
    },
  ];
  const cases = [
    {
      id: 'c1',
      messages: [
        { role: 'user', content: 'configure it' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'a1', type: 'function', function: { name: 'configure', arguments: PARSED } }],
        },
        { role: 'tool', tool_call_id: 'a1', content: JSON.stringify({ ok: true, echo: planted }) },
        { role: 'user', content: `and again:\n${PROSE}` },
      ],
      expected: [{ name: 'configure', arguments: { id: 'x' } }],
    },
  ];

  it.each([
    ['openai', startChatCompletions],
    ['anthropic', startAnthropicMessages],
  ] as const)('%s', async (provider, start) => {
    const fake = await start(() => call('configure', { id: 'x' }));
    const tmp = tempDir();
    try {
      const suite = writeSuite(path.join(tmp.dir, 's'), { suite: { dataset_version: '1' }, tools, cases });
      const r = await evalCli(
        [
          'run',
          '--suite',
          suite,
          '--model',
          'm',
          '--provider',
          provider,
          '--base-url',
          fake.baseUrl,
          '--out',
          'r.jsonl',
        ],
        { cwd: tmp.dir, env: { EVAL_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' } },
      );
      expect(r.code, r.err).toBe(0);
      const raw = readFileSync(path.join(tmp.dir, 'r.jsonl'), 'utf8');
      expect(fake.received.length).toBeGreaterThan(0);
      // The secrets did go to the model (the case holds them): the records must not keep them.
      expect(leaks(JSON.stringify(fake.received.map((q) => q.body)))).not.toEqual([]);
      expect(leaks(raw)).toEqual([]);
      expect(raw).toContain('[SECRET]');
    } finally {
      await fake.close();
      tmp.remove();
    }
  });
});
