/**
 * `toolwatch eval generate`: a model drafts cases from a suite's tools.json and system.txt, one
 * request per tool and category through the eval adapters (structured output as a `submit_cases`
 * call), validated (validate.ts) and written as `review: true` drafts — never into the suite itself:
 * a person reviews them and appends them to cases.jsonl, as with `eval export`.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createAdapterRegistry } from '../adapters/index.js';
import { modelsFrom, UsageError, writeAtomic } from '../cli-common.js';
import { apiKeyFor, missingKeys } from '../runner.js';
import { loadSuite } from '../suite.js';
import { CATEGORY_NAMES, generationMessages, PROMPT_VERSION, SUBMIT_TOOL, SUBMIT_TOOL_DEF, } from './prompt.js';
import { newBook, normalizePrompt, reviewDrafts } from './validate.js';
const str = (v, k) => (typeof v[k] === 'string' ? v[k] : undefined);
function parseCategoryList(s) {
    if (s === undefined)
        return [...CATEGORY_NAMES];
    const out = [];
    for (const c of s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)) {
        if (!CATEGORY_NAMES.includes(c))
            throw new UsageError(`--categories: unknown category ${JSON.stringify(c)} (known: ${CATEGORY_NAMES.join(', ')})`);
        if (!out.includes(c))
            out.push(c);
    }
    if (!out.length)
        throw new UsageError('--categories: name at least one category');
    return out;
}
/** Drafts already in the output file (with --append): their ids are skipped, their prompts taken. */
function readExisting(file, book) {
    const ids = new Set();
    if (!existsSync(file))
        return ids;
    for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
        if (!line.trim())
            continue;
        let v;
        try {
            v = JSON.parse(line);
        }
        catch (err) {
            throw new UsageError(`${file}:${i + 1}: not valid JSON (${err.message}); nothing was generated`);
        }
        if (typeof v.id === 'string')
            ids.add(v.id);
        // Drafts already written count toward the per-tool-and-category limit.
        const g = v.metadata?.generator;
        if (typeof g?.tool === 'string' && typeof g.category === 'string') {
            const bucket = `${g.tool}\u0000${g.category}`;
            book.counts.set(bucket, (book.counts.get(bucket) ?? 0) + 1);
        }
        if (typeof v.prompt === 'string') {
            const e = v.expected;
            const tool = e?.kind === 'tool'
                ? (e.name ??
                    (e.calls ?? [])
                        .map((c) => c.name)
                        .sort()
                        .join('+'))
                : '(none)';
            book.exact.add(v.prompt);
            book.near.add(`${tool}\u0000${normalizePrompt(v.prompt)}`);
        }
    }
    return ids;
}
export async function generateCommand(v, env, io, deps, cwd) {
    const suiteDir = str(v, 'suite');
    const out = str(v, 'out');
    if (!suiteDir || !out)
        throw new UsageError('generate needs --suite and --out');
    const perToolRaw = str(v, 'per-tool') ?? '5';
    const perTool = Number(perToolRaw);
    if (!Number.isInteger(perTool) || perTool < 1 || perTool > 50)
        throw new UsageError('--per-tool: an integer from 1 to 50');
    const categories = parseCategoryList(str(v, 'categories'));
    const suite = loadSuite(path.resolve(cwd, suiteDir));
    if (!suite.tools.length)
        throw new UsageError(`${suite.dir}: generate drafts from tools.json, and this suite has none`);
    const models = modelsFrom(suite, v);
    if (models.length !== 1)
        throw new UsageError('generate drafts with one model: give --model (or a suite with one models: entry)');
    const spec = models[0];
    const adapters = deps.adapters ?? createAdapterRegistry();
    const problems = [
        ...missingKeys(models, env),
        ...(adapters.has(spec.provider) ? [] : [`${spec.label}: no adapter for ${spec.provider}`]),
    ];
    if (problems.length)
        throw new UsageError(problems.join('\n'));
    const file = path.resolve(cwd, out);
    if (existsSync(file) && v.append !== true)
        throw new UsageError(`--out ${file}: exists (give --append to add to it)`);
    const book = newBook(suite.cases);
    const existingIds = v.append === true ? readExisting(file, book) : new Set();
    const s = suite.settings;
    const sleep = deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    const key = apiKeyFor(spec, env);
    const adapter = adapters.create(spec, {
        ...(key ? { apiKey: key } : {}),
        timeoutMs: s.timeoutMs,
        retry: { maxRetries: s.maxRetries, maxRetryWaitMs: s.maxRetryWaitMs, sleep },
    });
    const meta = { model: spec.label, promptVersion: PROMPT_VERSION, datasetVersion: s.datasetVersion };
    const accepted = [];
    const refused = [];
    for (const t of suite.tools) {
        for (const category of categories) {
            const res = await adapter.complete({
                messages: generationMessages({ tools: suite.tools, system: suite.system, tool: t.name, category, n: perTool }),
                tools: [SUBMIT_TOOL_DEF],
                ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
                ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
            });
            const o = res.outcome;
            const submits = o.kind === 'tool_calls' ? o.calls.filter((c) => c.name === SUBMIT_TOOL) : [];
            if (!submits.length) {
                const what = o.kind === 'provider_error'
                    ? `provider error ${o.code}: ${o.message}`
                    : `answered ${o.kind} instead of calling ${SUBMIT_TOOL}`;
                refused.push({ tool: t.name, category, reason: `no drafts: ${what}`, draft: null });
                continue;
            }
            for (const c of submits) {
                const r = reviewDrafts(c.arguments, { tools: suite.tools, schemas: suite.schemas, tool: t.name, category, perTool, meta }, book);
                accepted.push(...r.cases);
                refused.push(...r.refused);
            }
        }
    }
    const fresh = accepted.filter((c) => !existingIds.has(c.id));
    const text = fresh.map((c) => `${JSON.stringify(c)}\n`).join('');
    mkdirSync(path.dirname(file), { recursive: true });
    if (v.append === true)
        appendFileSync(file, text);
    else
        writeAtomic(file, text);
    const refusedFile = str(v, 'refused');
    if (refusedFile)
        writeAtomic(path.resolve(cwd, refusedFile), refused.map((r) => `${JSON.stringify(r)}\n`).join(''));
    for (const r of refused) {
        const prompt = r.draft?.prompt;
        io.err(`refused ${r.tool}/${r.category}: ${r.reason}${typeof prompt === 'string' ? ` — ${JSON.stringify(prompt.slice(0, 80))}` : ''}\n`);
    }
    io.out(`generate: ${fresh.length} draft case(s) written to ${file} (review: true; append them to cases.jsonl after review), ` +
        `${refused.length} refused, ${accepted.length - fresh.length} already in the file; ` +
        `${suite.tools.length} tool(s) × ${categories.length} categor${categories.length === 1 ? 'y' : 'ies'}, model ${spec.label}, ${PROMPT_VERSION}\n`);
    return 0;
}
//# sourceMappingURL=command.js.map