/** A perfect BFCL answer built from the ground truth, as raw argument text (floats keep their ".0"). */
import { isDict, type Py, type PyDict } from '../../src/eval/bfcl/pyvalue.js';

/** Python's json.dumps shape (floats keep ".0"), so a whole-number float stays a float on the wire. */
export function pyDumps(v: Py): string {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) ? `${v}.0` : String(v);
  if (typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyDumps).join(', ')}]`;
  return `{${[...v].map(([k, x]) => `${JSON.stringify(k)}: ${pyDumps(x)}`).join(', ')}}`;
}
const first = (vals: Py): Py | undefined => {
  const x = (vals as Py[]).find((y) => y !== '');
  return x === undefined ? undefined : unwrap(x);
};
const unwrap = (x: Py): Py => {
  if (isDict(x)) {
    const m = new Map<string, Py>();
    for (const [k, v] of x) {
      const p = first(v);
      if (p !== undefined) m.set(k, p);
    }
    return m;
  }
  return Array.isArray(x) && x.some(isDict) ? x.map(unwrap) : x;
};
/** The answer a perfect model gives: each call with the first acceptable value of every parameter. */
export function groundTruthCalls(answers: PyDict[]): { id: string; name: string; arguments: string }[] {
  return answers.map((a, i) => {
    const [name, params] = [...a][0]!;
    const args = new Map<string, Py>();
    for (const [k, v] of params as PyDict) {
      const x = first(v);
      if (x !== undefined) args.set(k, x);
    }
    return { id: `c${i}`, name: name.replace(/\./g, '_'), arguments: pyDumps(args) };
  });
}
