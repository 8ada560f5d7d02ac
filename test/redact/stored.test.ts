/**
 * store.redact_arguments: planted secrets and personal data in arguments, messages, tool results and
 * user text never reach the rows of either store (read back with SQL, not through the API), while
 * counting and classification see the values as sent; a value the redactor cannot handle is left out
 * with its reason (fail closed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeRedactor } from '../../src/redact/stored.js';
import { metricValue, startToolwatch, type Harness } from '../helpers/harness.js';
import { dropDatabase, freshDatabase, pgServer } from '../helpers/pg.js';
import { PLANTED } from '../judge/planted.js';

const SECRETS = [
  'cardSpaced',
  'cardDashed',
  'cardPlain',
  'openaiKey',
  'anthropicKey',
  'bearer',
  'awsKey',
  'awsSecret',
  'jwt',
  'githubToken',
  'password',
] as const;
const PII = ['email', 'phoneIntl', 'phoneUs', 'phoneE164'] as const;
/** Planted values as they appear in real text: a password or AWS secret next to its key. */
const PLANTED_TEXT = Object.entries(PLANTED)
  .map(([what, v]) =>
    what === 'password' ? `password: ${v}` : what === 'awsSecret' ? `aws_secret_access_key=${v}` : v,
  )
  .join(' ; ');
/** The Bearer rule keeps the scheme word: the token is what must go. */
const leaked = (what: string): string =>
  what === 'bearer' ? PLANTED.bearer.slice('Bearer '.length) : PLANTED[what as keyof typeof PLANTED];

describe('storeRedactor', () => {
  const secrets = storeRedactor('secrets');
  const pii = storeRedactor('pii');

  it('secrets: keys, tokens, JWTs and cards masked; emails and phone numbers kept', () => {
    const out = secrets.text(PLANTED_TEXT);
    expect(out.ok).toBe(true);
    const value = (out as { value: string }).value;
    for (const w of SECRETS) expect(value, w).not.toContain(leaked(w));
    for (const w of PII) expect(value, w).toContain(PLANTED[w]);
  });

  it('pii: emails and phone numbers masked too', () => {
    const value = (pii.text(PLANTED_TEXT) as { value: string }).value;
    for (const w of [...SECRETS, ...PII]) expect(value, w).not.toContain(leaked(w));
  });

  it('JSON stays JSON (a card sent as a number too); untouched arguments keep their text as sent', () => {
    const out = secrets.json(
      '{"card": 4111111111111111, "key": "sk-proj-Abc123Def456Ghi789Jkl012Mno345", "db": {"Password": "x1", "api_key": 42}}',
    );
    // A secret-named key masks its value whatever it looks like (in JSON the key is not next to the value in one string).
    expect(out.ok && JSON.parse(out.value)).toEqual({
      card: '[CARD]',
      key: '[SECRET]',
      db: { Password: '[SECRET]', api_key: '[SECRET]' },
    });
    const plain = '{ "city" :  "Brno",\n "days": [1, 2] }';
    expect(secrets.json(plain)).toEqual({ ok: true, value: plain });
    expect(storeRedactor('none').json(PLANTED.jwt)).toEqual({ ok: true, value: PLANTED.jwt });
  });

  it('text that cannot hold a JSON object or array is masked as text, parsed or not', () => {
    for (const raw of [
      `Error: ${PLANTED.openaiKey} was refused`,
      JSON.stringify(`key ${PLANTED.openaiKey}`),
      ' \n 4111111111111111',
      'null',
      '',
      `\ufeff{"key": "${PLANTED.openaiKey}"}`,
    ]) {
      expect(secrets.json(raw), raw).toEqual(secrets.text(raw));
    }
    expect(secrets.json(`\n\t [{"key": "${PLANTED.openaiKey}"}]`)).toEqual({ ok: true, value: '[{"key":"[SECRET]"}]' });
  });

  it('fails closed on what it cannot walk (nesting too deep): no value, a reason', () => {
    const deep = `{"a":${'['.repeat(7000)}"${PLANTED.openaiKey}"${']'.repeat(7000)}}`;
    const out = secrets.json(deep);
    expect(out.ok).toBe(false);
    expect((out as { reason: string }).reason).toMatch(/^redaction failed \(RangeError: .*\); not stored$/);
  });

  it('keeps as sent, unparsed, JSON in whose text no rule could match anything, however deep', () => {
    const deep = `{"a":${'['.repeat(7000)}"Brno"${']'.repeat(7000)}}`;
    expect(secrets.json(deep)).toEqual({ ok: true, value: deep });
  });
});

const schema = {
  type: 'object',
  properties: { id: { type: 'string' }, card: { type: 'integer' }, note: { type: 'string' } },
  required: ['id'],
  additionalProperties: false,
};
const definitions = JSON.stringify([{ type: 'function', name: 'charge', parameters: schema }]);
const everything = PLANTED_TEXT;
/**
 * Under the trajectories' 16 KiB argument clip, too deep to serialise, with a secret at the bottom.
 * Past `check.max_argument_depth` the checker does not walk it either: counted `unvalidated`
 * (`too_deep`), so no failure record — only the trajectory step, which must fail closed.
 */
const DEEP = `{"id":${'['.repeat(7000)}"${PLANTED.openaiKey}"${']'.repeat(7000)}}`;

/** One agent turn full of planted values: a model span with four calls, a tool span with a result. */
function request(service: string, traceId: string) {
  const now = Date.now();
  const span = (spanId: string, attributes: Record<string, string>) => ({
    traceId,
    spanId,
    name: 'span',
    startTimeUnixNano: String((now - 1000) * 1e6),
    endTimeUnixNano: String(now * 1e6),
    attributes: Object.entries(attributes).map(([key, stringValue]) => ({ key, value: { stringValue } })),
  });
  const calls = [
    // InvalidJson: stored, and the JSON error quotes the input.
    { id: 'bad-json', name: 'charge', arguments: `{"id": "o-1", "note": "${PLANTED.openaiKey} ${PLANTED.email}` },
    // valid only as sent: the card is an integer; masked it would be a string.
    { id: 'valid', name: 'charge', arguments: JSON.stringify({ id: 'o-2', card: 4111111111111111, note: everything }) },
    // SchemaMismatch (card must be an integer): stored.
    {
      id: 'mismatch',
      name: 'charge',
      arguments: JSON.stringify({ id: 'o-3', card: PLANTED.cardSpaced, note: everything, password: PLANTED.password }),
    },
    // Too deep to check (unvalidated, too_deep) and to redact: its trajectory step is stored without arguments.
    { id: 'deep', name: 'charge', arguments: DEEP },
  ];
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [
          {
            spans: [
              span('1000000000000001', {
                'gen_ai.operation.name': 'chat',
                'gen_ai.request.model': 'model-a',
                'gen_ai.tool.definitions': definitions,
                'gen_ai.input.messages': JSON.stringify([
                  { role: 'user', parts: [{ type: 'text', content: `charge me: ${everything}` }] },
                ]),
                'gen_ai.output.messages': JSON.stringify([
                  {
                    role: 'assistant',
                    parts: [
                      { type: 'text', content: `ok ${PLANTED.githubToken}` },
                      ...calls.map((c) => ({ type: 'tool_call', ...c })),
                    ],
                  },
                ]),
              }),
              span('1000000000000002', {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': 'charge',
                'gen_ai.tool.call.id': 'valid',
                'gen_ai.tool.call.arguments': calls[1]!.arguments,
                'gen_ai.tool.call.result': JSON.stringify({ receipt: everything, card: 4111111111111111 }),
              }),
            ],
          },
        ],
      },
    ],
  };
}

const stores = [
  { name: 'SQLite', pg: false },
  { name: 'PostgreSQL', pg: true },
];
const levels = ['secrets', 'pii'] as const;

describe.each(stores)('stored rows on $name', ({ pg }) => {
  const skip = pg && pgServer().skip;
  describe.skipIf(skip).each(levels)('store.redact_arguments: %s', (level) => {
    let tw: Harness;
    let url: string | undefined;
    const service = `redact-${level}`;
    const traceId = level === 'secrets' ? 'c0ffee00000000000000000000000001' : 'c0ffee00000000000000000000000002';

    beforeAll(async () => {
      url = pg ? await freshDatabase() : undefined;
      tw = await startToolwatch({
        config: {
          ...(url ? { database_url: url } : {}),
          store: { redact_arguments: level },
          judge: { enabled: true, model: 'j', sample_rate: 1 },
        },
      });
      const res = await tw.app.inject({
        method: 'POST',
        url: '/v1/traces',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(request(service, traceId)),
      });
      expect(res.statusCode, res.body).toBe(200);
    });
    afterAll(async () => {
      await tw?.close();
      if (url) await dropDatabase(url);
    });

    it('counts and classifies the values as sent', async () => {
      const text = await tw.metrics();
      const count = (outcome: string) => metricValue(text, 'toolwatch_tool_calls_total', { service, outcome });
      expect([count('InvalidJson'), count('valid'), count('SchemaMismatch'), count('unvalidated')]).toEqual([
        1, 1, 1, 1,
      ]);
      expect(metricValue(text, 'toolwatch_unvalidated_calls_total', { service, reason: 'too_deep' })).toBe(1);
      expect(metricValue(text, 'toolwatch_redaction_failures_total', { what: 'trajectory' })).toBe(1);
    });

    it('no planted secret in any stored failure record or trajectory step', async () => {
      const sql = tw.services.store.sql;
      const failures = await sql.all<{ arguments: string | null; message: string; arguments_omitted: string | null }>(
        'SELECT arguments, message, arguments_omitted FROM failures',
      );
      expect(failures).toHaveLength(2);
      const steps = await sql.all<{ payload: string }>('SELECT payload FROM judge_steps');
      expect(steps).toHaveLength(2);
      const stored = [...failures.flatMap((f) => [f.arguments ?? '', f.message]), ...steps.map((s) => s.payload)].join(
        '\n',
      );
      for (const w of SECRETS) expect(stored, w).not.toContain(leaked(w));
      for (const w of PII) {
        if (level === 'pii') expect(stored, w).not.toContain(PLANTED[w]);
        else expect(stored, w).toContain(PLANTED[w]);
      }
      expect(stored).toContain('[SECRET]');
      expect(stored).toContain('[CARD]');
      if (level === 'pii') expect(stored).toContain('[EMAIL]');
    });

    it('the call too deep to redact: counted, stored without arguments, the reason recorded', async () => {
      const res = await tw.app.inject(`/api/failures?service=${service}&outcome=SchemaMismatch`);
      const items = JSON.parse(res.body).items as { callId: string; arguments?: string; argumentsOmitted?: string }[];
      // Too deep to check: unvalidated, so no failure record holds it.
      expect(items.find((f) => f.callId === 'deep')).toBeUndefined();
      const mismatch = items.find((f) => f.callId === 'mismatch')!;
      expect(JSON.parse(mismatch.arguments!)).toMatchObject({ id: 'o-3', card: '[CARD]', password: '[SECRET]' });
      const t = JSON.parse((await tw.app.inject(`/api/trajectories/${traceId}`)).body);
      const calls = t.steps.find((s: { kind: string }) => s.kind === 'model').calls as {
        callId: string;
        arguments?: string;
        argumentsOmitted?: string;
      }[];
      expect(calls.find((c) => c.callId === 'deep')).toMatchObject({
        argumentsOmitted: expect.stringMatching(/^redaction failed/),
      });
      expect(calls.find((c) => c.callId === 'deep')?.arguments).toBeUndefined();
    });
  });
});

describe('store.redact_arguments: none', () => {
  let tw: Harness;
  beforeAll(async () => {
    tw = await startToolwatch({ config: { store: { redact_arguments: 'none' } } });
    await tw.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(request('raw', 'c0ffee00000000000000000000000003')),
    });
  });
  afterAll(async () => {
    await tw?.close();
  });

  it('stores the arguments exactly as sent', async () => {
    const rows = await tw.services.store.sql.all<{ arguments: string | null }>('SELECT arguments FROM failures');
    expect(rows.map((r) => r.arguments ?? '').join('\n')).toContain(PLANTED.password);
    // The call too deep to check is unvalidated (too_deep): no failure record.
    expect(rows.filter((r) => r.arguments === DEEP)).toHaveLength(0);
  });
});
