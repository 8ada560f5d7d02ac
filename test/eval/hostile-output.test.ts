/**
 * Issue 17, finding 11: what a model answers is data. Through the real CLI against a local
 * chat-completions server: tool names and argument values holding Markdown links, images, mentions,
 * HTML and pipes reach the Markdown summary as text; names with line breaks, GitHub Actions workflow
 * commands and escape sequences reach stderr as one inert line; tools named `constructor` and
 * `__proto__` are counted in the confusion matrix like any other.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/eval/report.js';
import { mdCell } from '../../src/eval/markdown.js';
import { inert } from '../../src/eval/progress.js';
import { startChatCompletions } from '../fakes/chat-completions.js';
import { call, type FakeServer, type Reply } from '../fakes/scripted.js';
import { evalCli, tempDir, writeSuite } from './helpers.js';

/** The control characters in a text (biome refuses them in a regular expression literal). */
const controls = (s: string) => [...s].filter((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

const tool = (name: string) => ({
  type: 'function',
  function: {
    name,
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false },
  },
});

/** What a model may answer, each in a tool name (an unknown tool) and in an argument value. */
const HOSTILE: [string, string][] = [
  ['a link', '[click me](https://evil.example/phish)'],
  ['an image', '![tracker](https://evil.example/pixel.png)'],
  ['a mention', '@octocat please merge'],
  ['raw HTML', '<img src=x onerror=alert(1)><a href="https://evil.example">x</a>'],
  ['a pipe breaking the table', 'a | b | c'],
  ['a bare URL', 'see https://evil.example and www.evil.example'],
  ['a workflow command after a line break', 'x\n::error file=a.ts::pwned\n::add-mask::x'],
  ['escape sequences', '\u001b[2J\u001b[31mred\r\u001b]0;title\u0007'],
];

describe('toolwatch eval: hostile model output', () => {
  let fake: FakeServer;
  let tmp: ReturnType<typeof tempDir>;
  let answers: Record<string, Reply>;
  let suite: string;
  let run: Awaited<ReturnType<typeof evalCli>>;
  let md: string;
  let report: Report;

  beforeAll(async () => {
    answers = {};
    fake = await startChatCompletions((q) => answers[q.key] ?? { status: 400, message: 'unscripted' });
    tmp = tempDir();
    suite = writeSuite(path.join(tmp.dir, 'hostile'), {
      suite: { dataset_version: '1' },
      tools: [tool('search'), tool('constructor'), tool('__proto__'), tool('toString')],
      cases: [
        ...HOSTILE.flatMap((_, i) => [
          { id: `name-${i}`, user: `name ${i}`, expected: [{ name: 'search', arguments: { q: 'x' } }] },
          { id: `arg-${i}`, user: `arg ${i}`, expected: [{ name: 'search', arguments: { q: 'x' } }] },
        ]),
        { id: 'ctor', user: 'ctor', expected: [{ name: 'constructor', arguments: { q: 'a' } }] },
        { id: 'proto', user: 'proto', expected: [{ name: '__proto__', arguments: { q: 'b' } }] },
        { id: 'proto-miss', user: 'proto-miss', expected: [{ name: '__proto__', arguments: { q: 'c' } }] },
        { id: 'tostring', user: 'tostring', expected: [{ name: 'toString', arguments: { q: 'd' } }] },
      ],
    });
    HOSTILE.forEach(([, h], i) => {
      answers[`name ${i}`] = call(h, { q: 'x' });
      answers[`arg ${i}`] = call('search', { q: h });
    });
    Object.assign(answers, {
      ctor: call('constructor', { q: 'a' }),
      proto: call('__proto__', { q: 'b' }),
      'proto-miss': call('constructor', { q: 'c' }),
      tostring: call('toString', { q: 'd' }),
    });
    run = await evalCli(
      [
        'run',
        '--suite',
        suite,
        '--model',
        'm1',
        '--base-url',
        fake.baseUrl,
        '--out',
        'r.jsonl',
        '--markdown',
        'summary.md',
        '--report',
        'report.json',
      ],
      { cwd: tmp.dir },
    );
    md = readFileSync(path.join(tmp.dir, 'summary.md'), 'utf8');
    report = JSON.parse(readFileSync(path.join(tmp.dir, 'report.json'), 'utf8')) as Report;
  });
  afterAll(async () => {
    await fake.close();
    tmp.remove();
  });

  it('runs every case', () => {
    expect(run.code, run.err).toBe(0);
    expect(report.models[0]!.cases).toHaveLength(HOSTILE.length * 2 + 4);
  });

  it('the Markdown summary shows the output as text: no link, image, mention, HTML or URL is live', () => {
    // The failing cases are all in the table, with what came back.
    expect(md).toContain('### Failing cases');
    expect(md).not.toMatch(/(?<!\\)[[\]]/); // link and image brackets are escaped (the template has none)
    expect(md).not.toMatch(/<[A-Za-z/!]/); // no raw HTML
    expect(md).not.toMatch(/@[A-Za-z0-9]/); // no mention
    expect(md).not.toMatch(/https?:\/\/|www\./i); // no bare URL GitHub would link
    expect(md).not.toMatch(/^::/m);
    // Every row of the failing-cases table has its four cells, whatever the output held.
    const rows = md.split('\n').filter((l) => /^\| (name|arg)-\d/.test(l));
    expect(rows).toHaveLength(HOSTILE.length * 2);
    for (const row of rows) expect(row.match(/(?<!\\)\|/g), row).toHaveLength(5);
    // …and the text is still there to read.
    expect(md).toContain('octocat');
    expect(md).toContain('evil.example');
  });

  it('stderr progress: one line per result, no escape sequence, no line a runner would take as a command', () => {
    const lines = run.err.split('\n').filter((l) => /^\[\d+\/\d+\]/.test(l));
    expect(lines).toHaveLength(HOSTILE.length * 2 + 4);
    expect(controls(run.err.replace(/\n/g, ''))).toEqual([]);
    expect(run.err.split('\n').filter((l) => l.startsWith('::'))).toEqual([]);
    expect(run.err).toContain('\\n::error file=a.ts::pwned');
  });

  it('tools named constructor, __proto__ and toString are counted like any other', () => {
    const o = report.models[0]!.overall;
    expect(o.confusion.constructor).toEqual({ constructor: 1 });
    // (An object literal cannot hold an own `__proto__`: the expected row is parsed, as report.json is.)
    expect(Object.getOwnPropertyDescriptor(o.confusion, '__proto__')?.value).toEqual(
      JSON.parse('{"__proto__": 1, "constructor": 1}'),
    );
    expect(o.confusion.toString).toEqual({ toString: 1 });
    expect(Object.getPrototypeOf(o.confusion)).toBe(Object.prototype);
    // constructor, __proto__, toString, search (with the unknown names as classes of their own).
    expect(o.macroF1.value).not.toBeNull();
    expect(Number.isFinite(o.macroF1.value)).toBe(true);
    expect(o.selectionAccuracy).toMatchObject({ numerator: 3 + HOSTILE.length, denominator: HOSTILE.length * 2 + 4 });
  });
});

describe('the escaping functions', () => {
  it.each(HOSTILE)('mdCell: %s', (_, h) => {
    const cell = mdCell(h);
    expect(cell).not.toMatch(/(?<!\\)[[\]|]|<|\n|@[A-Za-z]|:\/\//);
  });

  it.each(HOSTILE)('inert: %s', (_, h) => {
    const line = inert(h);
    expect(controls(line)).toEqual([]);
    expect(inert(`::${h}`).startsWith('::')).toBe(false);
  });

  it('keeps ordinary names as they are', () => {
    expect(mdCell('get_weather')).toBe('get_weather');
    expect(inert('openai/gpt-4o c1 #1 tool_calls get_weather')).toBe('openai/gpt-4o c1 #1 tool_calls get_weather');
  });
});
