/**
 * Answering the `judge` and `similar` argument checks of a report. Like the eval judge
 * (judge-run.ts): a first pass over the report looks every check up and collects what is not
 * known yet; that is asked once (the judge questions concurrently, the texts in batches to the
 * embeddings endpoint); the second pass reads the answers. Judge verdicts live in the judge's
 * cache (scope `argument`), embeddings in their own JSONL cache (by model and text), so a rerun
 * or a second candidate with the same value pays nothing. What could not be answered (transport
 * errors) stays pending: reported, never cached, never a pass. Texts sent out are redacted first,
 * as every judge request is.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { JudgeTransportError } from '../judge/client.js';
import { ARG_CONTRACT, argQuestion, cosine, embeddingKey, embeddingText } from './arg-match.js';
export class EmbeddingCache {
    file;
    entries = new Map();
    constructor(file) {
        this.file = file;
        if (!existsSync(file))
            return;
        for (const line of readFileSync(file, 'utf8').split('\n')) {
            if (!line.trim())
                continue;
            try {
                const e = JSON.parse(line);
                if (e.type === 'embedding' && typeof e.key === 'string' && Array.isArray(e.vector))
                    this.entries.set(e.key, e.vector);
            }
            catch {
                // A cut last line of an interrupted run: that text is embedded again.
            }
        }
    }
    get(key) {
        return this.entries.get(key);
    }
    put(e) {
        this.entries.set(e.key, e.vector);
        mkdirSync(path.dirname(this.file), { recursive: true });
        appendFileSync(this.file, `${JSON.stringify(e)}\n`);
    }
}
export function createEmbedder(s, env) {
    const key = s.apiKeyEnv ? env[s.apiKeyEnv] : env.EVAL_EMBEDDINGS_API_KEY;
    // The SDK's own retries (Retry-After honoured) are enough for one batch call.
    const client = new OpenAI({
        baseURL: s.baseUrl,
        apiKey: key ?? 'no-key',
        organization: null,
        project: null,
        maxRetries: s.maxRetries,
        timeout: s.timeoutMs,
    });
    return {
        model: s.model,
        async embed(texts) {
            const r = await client.embeddings.create({ model: s.model, input: texts, encoding_format: 'float' });
            const vectors = [];
            for (const d of r.data)
                vectors[d.index] = d.embedding;
            if (vectors.length !== texts.length || vectors.some((v) => !Array.isArray(v)))
                throw new Error(`the embeddings answer has ${r.data.length} vectors for ${texts.length} texts`);
            return { vectors, inputTokens: r.usage?.prompt_tokens ?? 0 };
        },
    };
}
const round = (x) => Math.round(x * 1e4) / 1e4;
export function argMatchSession(o) {
    const s = {
        openQuestions: new Map(),
        openTexts: new Set(),
        seenQuestions: new Set(),
        seenTexts: new Set(),
        lookup: (q) => {
            if (q.mode === 'judge') {
                const j = o.judge;
                if (!j)
                    return { status: 'pending', match: null };
                let question;
                try {
                    question = argQuestion({
                        ...q,
                        system: o.system,
                        judgeModel: j.settings.model,
                        promptVersion: j.settings.promptVersion,
                        redactor: o.redactor,
                    });
                }
                catch {
                    // Fail closed: what cannot be redacted is never sent.
                    return { status: 'invalid', match: null };
                }
                s.seenQuestions.add(question.hash);
                const hit = j.cache.get(question.hash);
                if (!hit) {
                    s.openQuestions.set(question.hash, { caseId: q.c.id, messages: question.messages });
                    return { status: 'pending', match: null };
                }
                if (hit.status !== 'ok')
                    return { status: 'invalid', match: null };
                const v = hit.verdict;
                return { status: 'asked', match: v.same, reasoning: v.reasoning };
            }
            const sim = o.similar;
            if (!sim)
                return { status: 'pending', match: null };
            const threshold = q.threshold ?? sim.settings.threshold;
            let texts;
            try {
                texts = [embeddingText(q.expected), embeddingText(q.actual)].map((t) => o.redactor.text(t));
            }
            catch {
                return { status: 'invalid', match: null, threshold };
            }
            const vectors = texts.map((t) => {
                s.seenTexts.add(t);
                const v = sim.cache.get(embeddingKey(sim.settings.model, t));
                if (!v)
                    s.openTexts.add(t);
                return v;
            });
            if (!vectors[0] || !vectors[1])
                return { status: 'pending', match: null, threshold };
            const score = round(cosine(vectors[0], vectors[1]));
            return { status: 'asked', match: score >= threshold, score, threshold };
        },
    };
    return s;
}
const BATCH = 64;
/** Asks what the first pass left open: judge questions `concurrency` at a time, texts in batches. */
export async function resolveArgMatches(s, o) {
    const usage = { errorMessages: [] };
    const err = (m) => {
        if (usage.errorMessages.length < 5)
            usage.errorMessages.push(o.redactor.text(m).slice(0, 300));
    };
    if (o.judge && s.seenQuestions.size) {
        const j = o.judge;
        const u = {
            model: j.settings.model,
            promptVersion: j.settings.promptVersion,
            questions: s.seenQuestions.size,
            cached: s.seenQuestions.size - s.openQuestions.size,
            asked: 0,
            invalid: 0,
            errors: 0,
            inputTokens: 0,
            outputTokens: 0,
            totalTokens: 0,
            cost: 0,
        };
        const queue = [...s.openQuestions.entries()];
        let stop = false;
        const worker = async () => {
            while (queue.length && !stop && o.client) {
                const [hash, q] = queue.shift();
                try {
                    const a = await o.client.judgeAs(q.messages, ARG_CONTRACT);
                    u.asked++;
                    u.inputTokens += a.inputTokens;
                    u.outputTokens += a.outputTokens;
                    if (!a.verdict)
                        u.invalid++;
                    j.cache.put({
                        type: 'judge_verdict',
                        hash,
                        scope: 'argument',
                        caseId: q.caseId,
                        judgeModel: o.client.model,
                        promptVersion: j.settings.promptVersion,
                        status: a.verdict ? 'ok' : 'invalid',
                        ...(a.verdict ? { verdict: a.verdict } : { error: a.invalid ?? 'invalid' }),
                        inputTokens: a.inputTokens,
                        outputTokens: a.outputTokens,
                        at: new Date().toISOString(),
                    });
                    s.openQuestions.delete(hash);
                }
                catch (e) {
                    u.errors++;
                    err(`argument judge: ${e.message}`);
                    if (e instanceof JudgeTransportError && e.kind === 'rate_limited')
                        stop = true;
                    else if (!(e instanceof JudgeTransportError))
                        throw e;
                }
            }
        };
        await Promise.all(Array.from({ length: Math.min(j.settings.concurrency, queue.length) }, worker));
        u.errors += queue.length;
        u.totalTokens = u.inputTokens + u.outputTokens;
        u.cost =
            Math.round(((u.inputTokens * j.settings.price.inputPerMillion + u.outputTokens * j.settings.price.outputPerMillion) /
                1e6) *
                1e6) / 1e6;
        usage.judge = u;
    }
    if (o.similar && s.seenTexts.size) {
        const sim = o.similar;
        const u = {
            model: sim.settings.model,
            baseUrl: sim.settings.baseUrl,
            threshold: sim.settings.threshold,
            texts: s.seenTexts.size,
            cached: s.seenTexts.size - s.openTexts.size,
            embedded: 0,
            errors: 0,
            inputTokens: 0,
            cost: 0,
        };
        const open = [...s.openTexts];
        for (let i = 0; i < open.length; i += BATCH) {
            const batch = open.slice(i, i + BATCH);
            try {
                if (!o.embedder)
                    throw new Error('no embeddings endpoint');
                const r = await o.embedder.embed(batch);
                u.inputTokens += r.inputTokens;
                batch.forEach((t, k) => {
                    sim.cache.put({
                        type: 'embedding',
                        key: embeddingKey(sim.settings.model, t),
                        model: sim.settings.model,
                        vector: r.vectors[k],
                        at: new Date().toISOString(),
                    });
                    s.openTexts.delete(t);
                });
                u.embedded += batch.length;
            }
            catch (e) {
                u.errors += batch.length;
                err(`embeddings: ${e.message}`);
            }
        }
        u.cost = Math.round(((u.inputTokens * sim.settings.pricePerMillionInput) / 1e6) * 1e6) / 1e6;
        usage.similar = u;
    }
    return usage;
}
//# sourceMappingURL=arg-match-run.js.map