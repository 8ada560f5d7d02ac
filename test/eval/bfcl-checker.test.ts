/**
 * BFCL's AST rules, one by one, on synthetic functions (each row says which rule of BFCL's
 * ast_checker.py it pins), and the whole checker on the 298 real cases of ../shared/fixtures/bfcl:
 * answering every entry with its own first acceptable values passes every AST entry.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { astCheck, type BfclFunction, bestPairing, standardizeString } from '../../src/eval/bfcl/ast-checker.js';
import { loadBfcl } from '../../src/eval/bfcl/load.js';
import { loadsPy, pyEq, type PyDict } from '../../src/eval/bfcl/pyvalue.js';
import { decodeFirstAnswer, scoreEntry } from '../../src/eval/bfcl/score.js';
import { toBfclTool } from '../../src/eval/bfcl/tools.js';
import { groundTruthCalls } from './bfcl-helpers.js';
import { REPO } from './helpers.js';

const FIXTURES = path.resolve(REPO, '../shared/fixtures/bfcl');

const fn: BfclFunction = {
  name: 'geo.area',
  description: 'Area.',
  parameters: {
    type: 'dict',
    required: ['radius'],
    properties: {
      radius: { type: 'integer', description: 'r' },
      scale: { type: 'float', description: 's' },
      unit: { type: 'string', description: 'u' },
      flag: { type: 'boolean', description: 'f' },
      tags: { type: 'array', items: { type: 'string' }, description: 't' },
      weights: { type: 'array', items: { type: 'float' }, description: 'w' },
      opts: { type: 'dict', description: 'o', properties: { a: { type: 'integer' } } },
      rows: { type: 'array', items: { type: 'dict' }, description: 'rows' },
    },
  },
};
const answer = (params: string): PyDict => loadsPy(`{"geo.area": ${params}}`) as PyDict;
const GT = answer(
  '{"radius": [10], "scale": [2.0, ""], "unit": ["square meters", ""], "flag": ["", false], "tags": [["a b", "C"], ""], "weights": [[1.0, 2.5], ""], "opts": [{"a": [1, 2], "b": ["", "x"]}, ""], "rows": [[{"k": ["v"]}], ""]}',
);
const check = (args: string) => astCheck('simple_python', [fn], [{ name: 'geo_area', params: loadsPy(args) }], [GT]);

describe('BFCL AST checker rules', () => {
  it.each([
    ['exact int', '{"radius": 10}', true],
    ['5.0 for an integer is a float: wrong type', '{"radius": 10.0}', false],
    ['bool for an integer: wrong type (True == 1 never gets a chance)', '{"radius": true}', false],
    ['"10" for an integer: wrong type', '{"radius": "10"}', false],
    ['int for a float: promoted, 2 == 2.0', '{"radius": 10, "scale": 2}', true],
    ['float value compared by value', '{"radius": 10, "scale": 2.0}', true],
    ['"" among the values: may be omitted', '{"radius": 10}', true],
    ['required missing', '{"scale": 2.0}', false],
    ['a parameter the answer does not list: unexpected', '{"radius": 10, "other": 1}', false],
    ['strings: case, spaces and ,./-_*^ ignored', '{"radius": 10, "unit": "Square-Meters"}', true],
    ['strings: other differences count', '{"radius": 10, "unit": "square metres"}', false],
    ['bool value', '{"radius": 10, "flag": false}', true],
    ['bool for bool but wrong value', '{"radius": 10, "flag": true}', false],
    ['list of strings: each standardised, order kept', '{"radius": 10, "tags": ["A-B", "c"]}', true],
    ['list in another order: fails', '{"radius": 10, "tags": ["c", "a b"]}', false],
    // With "" among the values the inner type check passes anything, and [1, 2.5] == [1.0, 2.5].
    [
      'ints inside a float list that may be omitted: BFCL lets them through',
      '{"radius": 10, "weights": [1, 2.5]}',
      true,
    ],
    ['floats inside a float list', '{"radius": 10, "weights": [1.0, 2.5]}', true],
    ['dict: optional key left out, alternatives per key', '{"radius": 10, "opts": {"a": 2}}', true],
    ['dict: unexpected key', '{"radius": 10, "opts": {"a": 1, "z": 1}}', false],
    ['dict: required key missing', '{"radius": 10, "opts": {"b": "x"}}', false],
    ['list of dicts', '{"radius": 10, "rows": [{"k": "V"}]}', true],
    ['list of dicts: wrong count', '{"radius": 10, "rows": [{"k": "v"}, {"k": "v"}]}', false],
  ])('%s', (_name, args, valid) => {
    expect(check(args).valid).toBe(valid);
  });

  it('ints inside a required float list: not promoted (the inner type check)', () => {
    const gt = answer('{"radius": [10], "weights": [[1.0, 2.5]]}');
    const run = (args: string) => astCheck('simple_python', [fn], [{ name: 'geo_area', params: loadsPy(args) }], [gt]);
    expect(run('{"radius": 10, "weights": [1, 2.5]}').errorType).toBe('type_error:nested');
    expect(run('{"radius": 10, "weights": [1.0, 2.5]}').valid).toBe(true);
  });

  it('a name is compared as sent (dots become underscores)', () => {
    expect(astCheck('simple_python', [fn], [{ name: 'geo.area', params: loadsPy('{"radius": 10}') }], [GT]).valid).toBe(
      false,
    );
  });

  it('standardises both sides as BFCL does', () => {
    expect(standardizeString("April 1, 2024 - O'Neil_x*y^z/w.")).toBe('april12024o"neilxyzw');
  });

  it('Python equality: 1 == 1.0 == True, lists element-wise, dicts by key', () => {
    expect(pyEq(loadsPy('1'), loadsPy('1.0'))).toBe(true);
    expect(pyEq(loadsPy('1'), loadsPy('true'))).toBe(true);
    expect(pyEq(loadsPy('[1, {"a": 2}]'), loadsPy('[1.0, {"a": 2.0}]'))).toBe(true);
    expect(pyEq(loadsPy('1'), loadsPy('1.5'))).toBe(false);
    expect(() => loadsPy('{"a": 1,}')).toThrow();
    expect(loadsPy('NaN')).toBeNaN();
  });

  const g: BfclFunction = {
    name: 'g',
    parameters: { type: 'dict', required: ['x'], properties: { x: { type: 'integer', description: '' } } },
  };
  const gAnswers = [loadsPy('{"g": {"x": [1, 2]}}'), loadsPy('{"g": {"x": [1]}}')] as PyDict[];
  const calls = (...xs: number[]) => xs.map((x) => ({ name: 'g', params: loadsPy(`{"x": ${x}}`) }));

  it('parallel: order-free, greedy as BFCL — a right answer can be rejected; the best pairing accepts it', () => {
    expect(astCheck('parallel', [g], calls(2, 1), gAnswers).valid).toBe(true);
    // BFCL's greedy pairing gives call x=1 to the first expectation, and x=2 fits nothing left.
    expect(astCheck('parallel', [g], calls(1, 2), gAnswers).valid).toBe(false);
    expect(bestPairing([g], calls(1, 2), gAnswers)).toBe(true);
    expect(astCheck('parallel', [g], calls(1), gAnswers).errorType).toBe(
      'parallel_function_checker_no_order:wrong_count',
    );
  });

  it('decodes answers as BFCL’s chat-completions handler: text is no call, broken JSON undecodable', () => {
    expect(decodeFirstAnswer({ kind: 'text', text: 'Sorry' }).kind).toBe('undecodable');
    expect(decodeFirstAnswer({ kind: 'text', text: '' })).toEqual({ kind: 'calls', calls: [] });
    expect(decodeFirstAnswer({ kind: 'tool_calls', calls: [{ id: '1', name: 'g', arguments: '{"x":' }] }).kind).toBe(
      'undecodable',
    );
    expect(decodeFirstAnswer({ kind: 'tool_calls', calls: [{ id: '1', name: 'g', arguments: '[1]' }] }).kind).toBe(
      'wrong_format',
    );
  });
});

describe('BFCL tools as sent to function-calling models', () => {
  it('maps types, adds the float format and the description hints, renames dotted names', () => {
    const t = toBfclTool(fn) as { name: string; description: string; parameters: any };
    expect(t.name).toBe('geo_area');
    expect(t.description).toBe('Area. Note that the provided function is in Python 3 syntax.');
    expect(t.parameters.type).toBe('object');
    expect(t.parameters.properties.scale).toEqual({
      type: 'number',
      format: 'float',
      description: 's This is a float type value.',
    });
    expect(t.parameters.properties.opts.type).toBe('object');
    expect(t.parameters.properties.rows.items.type).toBe('object');
    expect(t.parameters.properties.weights.items.type).toBe('number');
    expect(fn.parameters.properties.scale!.type).toBe('float'); // the BFCL document itself is untouched
  });
});

describe('the 298 real BFCL cases', () => {
  const data = loadBfcl(FIXTURES);

  it('reads every category, line i of a question file with line i of its answers', () => {
    const count = (c: string) => data.entries.filter((e) => e.category === c).length;
    expect(data.entries).toHaveLength(298);
    expect([count('simple_python'), count('multiple'), count('parallel'), count('live_relevance')]).toEqual([
      45, 30, 35, 8,
    ]);
    expect(data.datasetVersion).toMatch(/^bfcl-v4-[0-9a-f]{12}$/);
  });

  it('reads v3 names (simple → simple_python) and prefers the newest version of a category', () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'toolwatch-bfcl-v3-'));
    try {
      mkdirSync(path.join(tmp, 'possible_answer'));
      const two = (f: string) => `${readFileSync(f, 'utf8').split('\n').slice(0, 2).join('\n')}\n`;
      writeFileSync(path.join(tmp, 'BFCL_v3_simple.json'), two(path.join(FIXTURES, 'BFCL_v4_simple_python.json')));
      writeFileSync(
        path.join(tmp, 'possible_answer', 'BFCL_v3_simple.json'),
        two(path.join(FIXTURES, 'possible_answer', 'BFCL_v4_simple_python.json')),
      );
      writeFileSync(path.join(tmp, 'BFCL_v3_irrelevance.json'), two(path.join(FIXTURES, 'BFCL_v4_irrelevance.json')));
      writeFileSync(
        path.join(tmp, 'BFCL_v4_irrelevance.json'),
        `${readFileSync(path.join(FIXTURES, 'BFCL_v4_irrelevance.json'), 'utf8').split('\n')[0]}\n`,
      );
      writeFileSync(path.join(tmp, 'BFCL_v3_multi_turn_base.json'), '{"id": "ignored"}\n');
      const d = loadBfcl(tmp);
      expect(d.categories).toEqual(['simple_python', 'irrelevance']);
      expect(d.entries.map((e) => e.category)).toEqual(['simple_python', 'simple_python', 'irrelevance']);
      expect(d.datasetVersion).toMatch(/^bfcl-v4-/);
      expect(d.ignored).toEqual(['BFCL_v3_multi_turn_base.json']);
      rmSync(path.join(tmp, 'possible_answer', 'BFCL_v3_simple.json'));
      expect(() => loadBfcl(tmp)).toThrow(/possible answers of simple_python/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('the ground truth as the answer passes every AST entry; irrelevance passes text, fails a call', () => {
    const failing: string[] = [];
    for (const e of data.entries) {
      if (!e.answers) continue;
      const s = scoreEntry(e, { kind: 'tool_calls', calls: groundTruthCalls(e.answers) });
      if (!s.valid) failing.push(`${e.id}: ${s.errorType} ${s.error}`);
    }
    expect(failing).toEqual([]);
    const irr = data.entries.find((e) => e.category === 'irrelevance')!;
    expect(scoreEntry(irr, { kind: 'text', text: 'I cannot do that.' }).valid).toBe(true);
    expect(
      scoreEntry(irr, { kind: 'tool_calls', calls: [{ id: '1', name: irr.tools[0]!.name, arguments: '{}' }] }).valid,
    ).toBe(false);
  });

  it('every tool compiles in the production checker despite BFCL’s own keys (format float, optional)', async () => {
    const { SchemaCache } = await import('../../src/check/schema-cache.js');
    const { checkCall } = await import('../../src/eval/check.js');
    const schemas = new SchemaCache();
    const outcomes = new Set<string>();
    for (const e of data.entries) {
      for (const t of e.tools)
        outcomes.add(checkCall({ id: '1', name: t.name, arguments: '{}' }, e.tools, schemas).outcome);
    }
    expect([...outcomes].sort()).toEqual(['SchemaMismatch', 'valid']);
  });
});
