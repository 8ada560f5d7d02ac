/**
 * Drafts in, case lines or refusals out — pure. A draft is refused, with its reason, when it is not
 * the asked shape, names a tool the suite does not have, expects what its category does not (a call
 * for abstention, …), has expected arguments its tool's own schema rejects (checked by the
 * production checker, as a case is when the suite loads), repeats a prompt (exactly, or the same
 * tool with the same normalised prompt — case, accents, punctuation and spacing ignored) of the
 * suite or of an earlier draft, or comes after the per-tool-and-category limit was reached.
 */
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import { classify } from '../../check/classify.js';
import { ToolRegistry } from '../../check/registry.js';
import { CATEGORIES, DRAFTS_SCHEMA } from './prompt.js';
/** Case, accents, punctuation and spacing ignored. */
export function normalizePrompt(s) {
    return s
        .normalize('NFKD')
        .replace(/\p{M}/gu, '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
}
const callKey = (calls) => calls?.length ? [...calls.map((c) => c.name)].sort().join('+') : '(none)';
const lastUser = (c) => [...c.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
/** The suite's own cases seed the book, so a draft repeating one is refused. */
export function newBook(cases) {
    const book = { near: new Set(), exact: new Set(), counts: new Map() };
    for (const c of cases) {
        const prompt = lastUser(c);
        const tool = c.expected.kind === 'tool' ? callKey(c.expected.calls) : '(none)';
        book.exact.add(prompt);
        book.near.add(`${tool}\u0000${normalizePrompt(prompt)}`);
    }
    return book;
}
let validateDrafts;
const EMPTY = new ToolRegistry();
export function draftId(tool, category, prompt) {
    return `gen-${createHash('sha256')
        .update(`${tool}\u0000${category}\u0000${normalizePrompt(prompt)}`)
        .digest('hex')
        .slice(0, 12)}`;
}
/** The structured answer (a tool call's arguments, string or object) → accepted case lines and refusals. */
export function reviewDrafts(answer, o, book) {
    const refuse = (draft, reason) => ({ tool: o.tool, category: o.category, reason, draft });
    let value = answer;
    if (typeof answer === 'string') {
        try {
            value = JSON.parse(answer);
        }
        catch (err) {
            return { cases: [], refused: [refuse(answer, `the answer is not JSON (${err.message})`)] };
        }
    }
    const list = value?.cases;
    if (!Array.isArray(list))
        return { cases: [], refused: [refuse(value, 'the answer has no cases list')] };
    validateDrafts ??= new Ajv({ allErrors: true, strict: false }).compile({ ...DRAFTS_SCHEMA.properties.cases.items });
    const offered = new Map(o.tools.map((t) => [t.name, t]));
    const want = CATEGORIES[o.category].expect;
    const cases = [];
    const refused = [];
    for (const raw of list) {
        if (!validateDrafts(raw)) {
            const e = validateDrafts.errors?.[0];
            refused.push(refuse(raw, `not a draft (${e ? `${e.instancePath || '/'} ${e.message}` : 'invalid'})`));
            continue;
        }
        const d = raw;
        const calls = d.calls ?? [];
        if (d.expect !== want) {
            refused.push(refuse(d, `category ${o.category} expects ${want}, the draft expects ${d.expect}`));
            continue;
        }
        if (want === 'tool' && calls.length === 0) {
            refused.push(refuse(d, 'expects a call but gives no calls'));
            continue;
        }
        if (want !== 'tool' && calls.length) {
            refused.push(refuse(d, `expects ${want} but gives calls`));
            continue;
        }
        if (o.category === 'multi_call' && calls.length < 2) {
            refused.push(refuse(d, 'multi_call needs two or more calls'));
            continue;
        }
        const unknown = calls.find((c) => !offered.has(c.name));
        if (unknown) {
            refused.push(refuse(d, `calls ${JSON.stringify(unknown.name)}, which the suite does not have`));
            continue;
        }
        if (want === 'tool' && !calls.some((c) => c.name === o.tool)) {
            refused.push(refuse(d, `does not call ${o.tool}, the tool it was drafted for`));
            continue;
        }
        const broken = calls
            .map((c) => ({
            c,
            r: classify({
                name: c.name,
                args: { kind: 'structured', value: c.arguments, raw: JSON.stringify(c.arguments) },
                service: 'eval',
                offered: o.tools,
            }, EMPTY, o.schemas),
        }))
            .find((x) => x.r.outcome === 'SchemaMismatch');
        if (broken && broken.r.outcome === 'SchemaMismatch') {
            const first = broken.r.errors[0];
            refused.push(refuse(d, `expected arguments of ${broken.c.name} break its schema (${first ? `${first.instancePath || '/'} ${first.message}` : 'invalid'})`));
            continue;
        }
        if (want === 'clarification') {
            const params = offered.get(o.tool)?.parameters;
            const props = Object.keys(params?.properties ?? {});
            const bad = (d.missing ?? []).find((m) => !props.includes(m));
            if (!d.missing?.length || bad !== undefined) {
                refused.push(refuse(d, bad !== undefined
                    ? `missing names ${JSON.stringify(bad)}, not an argument of ${o.tool}`
                    : 'a clarification draft must list what is missing'));
                continue;
            }
        }
        if (book.exact.has(d.prompt)) {
            refused.push(refuse(d, 'duplicate: the same prompt is already in the suite or drafted'));
            continue;
        }
        const near = `${want === 'tool' ? callKey(calls) : '(none)'}\u0000${normalizePrompt(d.prompt)}`;
        if (book.near.has(near)) {
            refused.push(refuse(d, 'near-duplicate: the same tool with the same normalised prompt is already in the suite or drafted'));
            continue;
        }
        const bucket = `${o.tool}\u0000${o.category}`;
        const n = book.counts.get(bucket) ?? 0;
        if (n >= o.perTool) {
            refused.push(refuse(d, `over the limit: ${o.perTool} case(s) per tool and category`));
            continue;
        }
        book.counts.set(bucket, n + 1);
        book.exact.add(d.prompt);
        book.near.add(near);
        const expected = want === 'text'
            ? { kind: 'text' }
            : want === 'clarification'
                ? { kind: 'clarification', missing: d.missing }
                : calls.length === 1
                    ? { kind: 'tool', name: calls[0].name, arguments: calls[0].arguments }
                    : { kind: 'tool', calls };
        cases.push({
            id: draftId(o.tool, o.category, d.prompt),
            prompt: d.prompt,
            expected,
            tags: ['generated', o.category, o.tool],
            review: true,
            ...(d.why ? { why: d.why } : {}),
            metadata: { generator: { ...o.meta, category: o.category, tool: o.tool } },
        });
    }
    return { cases, refused };
}
//# sourceMappingURL=validate.js.map