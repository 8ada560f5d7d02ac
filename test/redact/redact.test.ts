import { describe, expect, it } from 'vitest';
import { createRedactor, luhnValid } from '../../src/redact/redact.js';
import { PLANTED } from '../judge/planted.js';


describe('redaction', () => {
  const r = createRedactor({ fields: ['password', 'billing.tax_id'], patterns: ['ACME-\\d{6}'] });

  it('masks every planted secret and PII in free text', () => {
    const text = [
      `email ${PLANTED.email}, call ${PLANTED.phoneIntl} or ${PLANTED.phoneUs} or ${PLANTED.phoneE164}`,
      `cards ${PLANTED.cardSpaced}; ${PLANTED.cardDashed}; ${PLANTED.cardPlain}`,
      `keys ${PLANTED.openaiKey} ${PLANTED.anthropicKey} Authorization: ${PLANTED.bearer}`,
      `aws_access_key_id=${PLANTED.awsKey} aws_secret_access_key=${PLANTED.awsSecret}`,
      `token ${PLANTED.jwt} gh ${PLANTED.githubToken} password: ${PLANTED.password} customer ${PLANTED.customerId}`,
    ].join('\n');
    const out = r.text(text);
    for (const [what, secret] of Object.entries(PLANTED)) expect(out, what).not.toContain(secret);
    expect(out).toContain('[EMAIL]');
    expect(out).toContain('[PHONE]');
    expect(out).toContain('[CARD]');
    expect(out).toContain('[SECRET]');
    expect(out).toContain('[REDACTED]');
  });

  it('masks configured field paths inside JSON arguments and results, and cards sent as numbers', () => {
    const args = JSON.stringify({ user: { password: 'x-not-a-pattern' }, billing: { tax_id: 'CZ12345678', city: 'Brno' }, card: 4111111111111111 });
    const out = JSON.parse(r.jsonText(args));
    expect(out).toEqual({ user: { password: '[REDACTED]' }, billing: { tax_id: '[REDACTED]', city: 'Brno' }, card: '[CARD]' });
  });

  it('leaves ordinary values alone: order ids, dates, amounts, non-Luhn digit runs', () => {
    const text = 'order ord_7281 placed 2024-01-15 for 129.99 EUR, tracking 1234567890123, sku SKU-204, version 1.2.3';
    expect(r.text(text)).toBe(text);
  });

  it('validates card numbers with Luhn', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('79927398713')).toBe(true); // the textbook Luhn example
  });

  it('refuses an invalid configured pattern (the caller then sends nothing)', () => {
    expect(() => createRedactor({ fields: [], patterns: ['(unclosed'] })).toThrow();
  });
});
