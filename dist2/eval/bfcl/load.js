/**
 * A local copy of BFCL's `data/` folder, read as BFCL writes it: `BFCL_v<N>_<category>.json`
 * question files (JSON Lines despite the extension) and `possible_answer/` files of the same name,
 * line i of one being line i of the other. Only the single-turn Python categories are read; the
 * answers are parsed as Python's json.loads parses them (ints and floats apart). Every problem is
 * reported at once and nothing runs on a half-read folder.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SuiteError } from '../suite.js';
import { isDict, loadsPy } from './pyvalue.js';
import { toBfclTool } from './tools.js';
/** v4 names; `simple` (v3) is read as simple_python. */
export const BFCL_CATEGORIES = [
    'simple_python',
    'multiple',
    'parallel',
    'parallel_multiple',
    'irrelevance',
    'live_simple',
    'live_multiple',
    'live_parallel',
    'live_parallel_multiple',
    'live_irrelevance',
    'live_relevance',
];
const ALIASES = { simple: 'simple_python' };
export const isRelevanceCategory = (c) => c.includes('relevance');
export const isLive = (c) => c.startsWith('live_');
export function parseCategories(list) {
    if (list === undefined)
        return undefined;
    const out = [];
    for (const raw of list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const c = ALIASES[raw] ?? raw;
        if (!BFCL_CATEGORIES.includes(c))
            throw new SuiteError([
                `--category: ${JSON.stringify(raw)} is not a category toolwatch scores (known: ${BFCL_CATEGORIES.join(', ')})`,
            ]);
        if (!out.includes(c))
            out.push(c);
    }
    return out;
}
const FILE = /^BFCL_v(\d+)_(.+)\.json$/;
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
function lines(file) {
    return readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '');
}
function readMessages(q, where, problems) {
    // question: [[turn…]] — one list per user turn; single-turn categories have exactly one.
    if (!Array.isArray(q) || q.length !== 1 || !Array.isArray(q[0])) {
        problems.push(`${where}: question must be one turn ([[{role, content}…]]); multi-turn categories are not scored`);
        return undefined;
    }
    const out = [];
    for (const m of q[0]) {
        if (!isObj(m) || typeof m.content !== 'string' || !['system', 'user', 'assistant'].includes(String(m.role))) {
            problems.push(`${where}: every message needs role system, user or assistant and a string content`);
            return undefined;
        }
        out.push(m.role === 'assistant'
            ? { role: 'assistant', content: m.content }
            : { role: m.role, content: m.content });
    }
    return out;
}
function readFunctions(f, where, problems) {
    if (!Array.isArray(f) || f.length === 0) {
        problems.push(`${where}: function must be a non-empty list`);
        return undefined;
    }
    for (const fn of f) {
        if (!isObj(fn) || typeof fn.name !== 'string' || !isObj(fn.parameters) || !isObj(fn.parameters.properties)) {
            problems.push(`${where}: every function needs name and parameters.properties`);
            return undefined;
        }
    }
    return f;
}
export function loadBfcl(dir, only) {
    const root = path.resolve(dir);
    if (!existsSync(root))
        throw new SuiteError([`${root}: no such folder`]);
    // Per category the newest version present (BFCL_v4_… over BFCL_v3_…).
    const found = new Map();
    const ignored = [];
    for (const name of readdirSync(root).sort()) {
        const m = FILE.exec(name);
        if (!m)
            continue;
        const cat = (ALIASES[m[2]] ?? m[2]);
        if (!BFCL_CATEGORIES.includes(cat)) {
            ignored.push(name);
            continue;
        }
        const version = Number(m[1]);
        if ((found.get(cat)?.version ?? -1) < version)
            found.set(cat, { file: name, version });
    }
    const problems = [];
    const categories = only ?? BFCL_CATEGORIES.filter((c) => found.has(c));
    for (const c of categories)
        if (!found.has(c))
            problems.push(`${root}: no BFCL_v*_${c}.json`);
    if (!categories.length)
        problems.push(`${root}: no BFCL question files (BFCL_v4_<category>.json) of a category toolwatch scores`);
    if (problems.length)
        throw new SuiteError(problems);
    const hash = createHash('sha256');
    for (const [, { file }] of [...found].sort(([a], [b]) => a.localeCompare(b))) {
        hash.update(file).update(readFileSync(path.join(root, file)));
        const pa = path.join(root, 'possible_answer', file);
        if (existsSync(pa))
            hash.update(readFileSync(pa));
    }
    const entries = [];
    const ids = new Set();
    for (const category of categories) {
        const { file } = found.get(category);
        const qFile = path.join(root, file);
        const qLines = lines(qFile);
        let answers;
        if (!isRelevanceCategory(category)) {
            const aFile = path.join(root, 'possible_answer', file);
            if (!existsSync(aFile)) {
                problems.push(`${aFile}: missing (the possible answers of ${category})`);
                continue;
            }
            answers = lines(aFile);
            if (answers.length !== qLines.length)
                problems.push(`${aFile}: ${answers.length} answers for ${qLines.length} questions (line i answers line i)`);
        }
        for (const [i, text] of qLines.entries()) {
            const where = `${qFile}:${i + 1}`;
            let q;
            try {
                q = JSON.parse(text);
            }
            catch (err) {
                problems.push(`${where}: not valid JSON (${err.message})`);
                continue;
            }
            if (!isObj(q) || typeof q.id !== 'string') {
                problems.push(`${where}: needs an id`);
                continue;
            }
            if (ids.has(q.id)) {
                problems.push(`${where}: duplicate id ${q.id}`);
                continue;
            }
            ids.add(q.id);
            const messages = readMessages(q.question, where, problems);
            const functions = readFunctions(q.function, where, problems);
            if (!messages || !functions)
                continue;
            const entry = {
                id: q.id,
                category,
                file: qFile,
                line: i + 1,
                messages,
                functions,
                tools: functions.map(toBfclTool),
            };
            if (answers && answers[i] !== undefined) {
                const aWhere = `${path.join(root, 'possible_answer', file)}:${i + 1}`;
                try {
                    const a = loadsPy(answers[i]);
                    const gt = isDict(a) ? a.get('ground_truth') : undefined;
                    if (!Array.isArray(gt) || !gt.every(isDict))
                        problems.push(`${aWhere}: ground_truth must be a list of {function: {param: [values]}}`);
                    else
                        entry.answers = gt;
                }
                catch (err) {
                    problems.push(`${aWhere}: not valid JSON (${err.message})`);
                }
            }
            entries.push(entry);
        }
    }
    if (problems.length)
        throw new SuiteError(problems);
    return {
        dir: root,
        datasetVersion: `bfcl-v${Math.max(...[...found.values()].map((f) => f.version))}-${hash.digest('hex').slice(0, 12)}`,
        categories: [...categories],
        entries,
        ignored,
    };
}
//# sourceMappingURL=load.js.map