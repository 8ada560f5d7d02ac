/**
 * Asking the eval judge: every observation the deterministic checks could not decide becomes a
 * question (judge-prompt.ts), keyed by the hash of (request, output, rubric, judge model, prompt
 * version). Answers are kept in a JSONL cache, so a rerun — or a second candidate that gave the
 * same output — pays nothing. The judge is the production judge's client (retries, Retry-After,
 * structured output with a text fallback, one re-ask on an invalid answer). A question the judge
 * could not answer (transport error) stays pending: reported, never cached, never a pass.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { JudgeTransportError, OpenAIJudgeClient, TRAJECTORY_CONTRACT } from '../judge/client.js';
import { createRedactor } from '../redact/redact.js';
import { DECISION_CONTRACT, judgeQuestion, verdictFields } from './judge-prompt.js';
export class JudgeCache {
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
                if (e.type === 'judge_verdict' && typeof e.hash === 'string')
                    this.entries.set(e.hash, e);
            }
            catch {
                // A cut last line of an interrupted run: that answer is asked again.
            }
        }
    }
    get(hash) {
        return this.entries.get(hash);
    }
    put(e) {
        this.entries.set(e.hash, e);
        mkdirSync(path.dirname(this.file), { recursive: true });
        appendFileSync(this.file, `${JSON.stringify(e)}\n`);
    }
}
export function createJudgeClient(s, env, sleep) {
    const key = s.apiKeyEnv ? env[s.apiKeyEnv] : env.EVAL_JUDGE_API_KEY;
    return new OpenAIJudgeClient({
        baseUrl: s.baseUrl,
        model: s.model,
        ...(key ? { apiKey: key } : {}),
        timeoutMs: s.timeoutMs,
        maxRetries: s.maxRetries,
        maxRetryWaitMs: s.maxRetryWaitMs,
        temperature: s.temperature,
        ...(sleep ? { sleep } : {}),
    });
}
export function judgeSession(suite, settings, cache) {
    const redactor = createRedactor({ fields: suite.settings.redact.fields, patterns: suite.settings.redact.patterns });
    const session = {
        settings,
        cache,
        redactor,
        system: suite.system,
        open: new Map(),
        seen: new Set(),
        lookup: (q) => {
            let question;
            try {
                question = judgeQuestion({
                    c: q.c,
                    system: suite.system,
                    turns: q.obs.turns,
                    checked: q.checked,
                    tools: q.offered,
                    scope: q.scope,
                    judgeModel: settings.model,
                    promptVersion: settings.promptVersion,
                    redactor,
                    ...(q.obs.endState !== undefined ? { endState: q.obs.endState } : {}),
                });
            }
            catch {
                // Fail closed: what cannot be redacted is never sent.
                return { status: 'invalid', hash: '' };
            }
            session.seen.add(question.hash);
            const hit = cache.get(question.hash);
            if (!hit) {
                session.open.set(question.hash, { scope: q.scope, caseId: q.c.id, messages: question.messages });
                return { status: 'pending', hash: question.hash };
            }
            if (hit.status !== 'ok')
                return { status: 'invalid', hash: hit.hash };
            const f = verdictFields(q.scope, hit.verdict);
            return { status: 'asked', hash: hit.hash, ...f };
        },
    };
    return session;
}
/** Asks every open question, `concurrency` at a time; a rate limit longer than max_retry_wait stops the rest. */
export async function askOpen(s, client) {
    const usage = {
        questions: s.seen.size,
        cached: s.seen.size - s.open.size,
        asked: 0,
        invalid: 0,
        errors: 0,
        errorMessages: [],
        inputTokens: 0,
        outputTokens: 0,
        totalTokens: 0,
        cost: 0,
    };
    const queue = [...s.open.entries()];
    let stop = false;
    const worker = async () => {
        while (queue.length && !stop) {
            const [hash, q] = queue.shift();
            try {
                const a = q.scope === 'decision'
                    ? await client.judgeAs(q.messages, DECISION_CONTRACT)
                    : await client.judgeAs(q.messages, TRAJECTORY_CONTRACT);
                usage.asked++;
                usage.inputTokens += a.inputTokens;
                usage.outputTokens += a.outputTokens;
                if (!a.verdict)
                    usage.invalid++;
                s.cache.put({
                    type: 'judge_verdict',
                    hash,
                    scope: q.scope,
                    caseId: q.caseId,
                    judgeModel: client.model,
                    promptVersion: s.settings.promptVersion,
                    status: a.verdict ? 'ok' : 'invalid',
                    ...(a.verdict ? { verdict: a.verdict } : { error: a.invalid ?? 'invalid' }),
                    inputTokens: a.inputTokens,
                    outputTokens: a.outputTokens,
                    at: new Date().toISOString(),
                });
                s.open.delete(hash);
            }
            catch (err) {
                usage.errors++;
                const msg = err.message;
                if (usage.errorMessages.length < 5)
                    usage.errorMessages.push(s.redactor.text(msg).slice(0, 300));
                if (err instanceof JudgeTransportError && err.kind === 'rate_limited')
                    stop = true;
                else if (!(err instanceof JudgeTransportError))
                    throw err;
            }
        }
    };
    await Promise.all(Array.from({ length: Math.min(s.settings.concurrency, queue.length) }, worker));
    usage.errors += queue.length; // left unasked after a long rate limit
    usage.totalTokens = usage.inputTokens + usage.outputTokens;
    usage.cost =
        Math.round(((usage.inputTokens * s.settings.price.inputPerMillion + usage.outputTokens * s.settings.price.outputPerMillion) /
            1e6) *
            1e6) / 1e6;
    return usage;
}
//# sourceMappingURL=judge-run.js.map