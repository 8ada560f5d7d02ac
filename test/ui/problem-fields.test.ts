/**
 * The page's renderings of a problem's parts that do not need a browser: the signature in words, the
 * optional fields other work adds to a problem (cost as GET /api/problems gives it, likely_change as
 * attribution names it), and the JSON view that marks the part a schema error points at — all
 * escaping what came from spans.
 */
import { describe, expect, it } from 'vitest';
import { jsonView, targetsOf } from '../../src/ui/json-view.js';
import { costText, likelyChangeText } from '../../src/ui/problems.js';
import { problemInWords } from '../../src/problems/in-words.js';
import { signatureLine, signatureWords } from '../../src/ui/problem-words.js';

const words = (p: { id?: string; outcome: string; tool: string; parts: string[] }) =>
  signatureWords({ id: 'x', ...p }).map((w) => w.value);

describe("a signature in words (the problems layer's wording, as HTML)", () => {
  it.each([
    [{ outcome: 'SchemaMismatch', tool: 't', parts: ['required /amount'] }, ['<code>amount</code> is missing']],
    [
      { outcome: 'SchemaMismatch', tool: 't', parts: ['type /items/*/sku'] },
      ['<code>items[].sku</code> has the wrong type'],
    ],
    [
      { outcome: 'SchemaMismatch', tool: 't', parts: ['uniqueItems /', 'required /a', 'type /b', 'enum /c'] },
      [
        '<code>(arguments)</code> fails uniqueItems',
        '<code>a</code> is missing',
        '<code>b</code> has the wrong type',
        '<code>c</code> is not one of the allowed values',
      ],
    ],
    [
      { outcome: 'UnknownName', tool: '<b>x</b>', parts: [] },
      ['<code>&lt;b&gt;x&lt;/b&gt;</code> called, a tool that was not offered'],
    ],
    [
      { outcome: 'execution', tool: 't', parts: ['http:503', 'server_error'] },
      ['<code>t</code>: execution server_error (HTTP 503)'],
    ],
    [
      { outcome: 'execution', tool: 't', parts: ['error', 'type:TimeoutError'] },
      ['<code>t</code>: execution error (<code>TimeoutError</code>)'],
    ],
    [
      { id: '_other', outcome: '_other', tool: '_other', parts: [] },
      ['other failures of this service (past problems.max_per_service)'],
    ],
  ])('%j', (p, expected) => {
    expect(words(p)).toEqual(expected);
  });

  it('names each InvalidJson cause after the tool, and says a line as the alerts do', () => {
    for (const cause of ['truncated', 'concatenated', 'python_literal', 'trailing_text', 'not_object', 'empty'])
      expect(words({ outcome: 'InvalidJson', tool: '<t>', parts: [cause] })[0]).toMatch(
        new RegExp(`^<code>&lt;t&gt;</code>: .+\\(${cause}[):]`),
      );
    expect(words({ outcome: 'InvalidJson', tool: 't', parts: ['other'] })).toEqual([
      '<code>t</code>: arguments are not valid JSON',
    ]);
    const p = { id: 'x', outcome: 'SchemaMismatch', tool: '<i>', parts: ['required /a', 'type /b'] };
    expect(signatureLine(p).value).toBe(
      '<code>&lt;i&gt;</code>: <code>a</code> is missing, <code>b</code> has the wrong type',
    );
    // The alert messages' words, segment for segment.
    expect(problemInWords(p)).toEqual([
      { code: '<i>' },
      { text: ': ' },
      { code: 'a' },
      { text: ' is missing, ' },
      { code: 'b' },
      { text: ' has the wrong type' },
    ]);
  });
});

describe('fields the problem store adds', () => {
  it('shows the cost as GET /api/problems gives it, nothing without one', () => {
    const cost = {
      repairs: 3,
      repaired: 2,
      retries: 1,
      steps: 4,
      inputTokens: 12_000,
      outputTokens: 345,
      durationMs: 42_000,
      usd: 0.0371,
      unpricedTokens: 0,
    };
    expect(costText({ cost })).toBe('12,345 tokens · 42.0 s · $0.04 · 3 repairs');
    expect(costText({ cost: { ...cost, usd: null } })).toBe('12,345 tokens · 42.0 s · 3 repairs');
    expect(
      costText({ cost: { repairs: 0, inputTokens: 0, outputTokens: 0, durationMs: 0, usd: null } }),
    ).toBeUndefined();
    expect(costText({})).toBeUndefined();
  });

  it("shows the likely change's sentence, or what changed", () => {
    expect(likelyChangeText({ likely_change: { text: 'refund_order’s definition changed at 10:02', p: 1e-7 } })).toBe(
      'refund_order’s definition changed at 10:02',
    );
    expect(
      likelyChangeText({
        likely_change: { change: { kind: 'model', time: '2026-12-01T10:02:00.000Z', from: 'a', to: 'b' } },
      }),
    ).toBe('model at 10:02 (a → b)');
    expect(likelyChangeText({ likely_change: null })).toBeUndefined();
    expect(likelyChangeText({})).toBeUndefined();
  });
});

describe('the JSON view', () => {
  it('reads targets from the parts (required marks the parent and names the property)', () => {
    expect(targetsOf(['required /items/*/sku', 'type /a~1b'])).toEqual([
      { segments: ['items', '*'], keyword: 'required', missing: 'sku' },
      { segments: ['a/b'], keyword: 'type' },
    ]);
  });

  it('marks the value at the path, escaping every key and value; text that is not JSON stays as it is', () => {
    const v = jsonView('{"items":[{"sku":1},{"<k>":"</pre><script>"}],"n":"x"}', [
      'type /items/*/sku',
      'required /items/*/qty',
    ]).value;
    expect(v).toContain('<mark class="hl" title="type">1</mark>');
    expect((v.match(/qty is missing/g) ?? []).length).toBe(4); // both items: title and note each
    expect(v).toContain('&quot;&lt;k&gt;&quot;');
    expect(v).not.toContain('<script>');
    expect(jsonView('{"a": <b>').value).toBe('<pre class="json raw">{&quot;a&quot;: &lt;b&gt;</pre>');
  });
});
