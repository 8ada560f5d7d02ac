import { createRedactor } from '../redact/redact.js';
import { argMatchSession, resolveArgMatches } from './arg-match-run.js';
import { parseCases } from './cases.js';
import { evaluate } from './evaluate.js';
import { toJudgeSettings } from './judge-settings.js';
const TOOLS = [
    { name: 'search_products', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
    {
        name: 'book_table',
        parameters: { type: 'object', properties: { city: { type: 'string' }, time: { type: 'string' } } },
    },
];
// cos(a, b) = 0.96 by hand.
const VECTORS = {
    "women's running shoes": [1, 0, 0],
    'running shoes for women': [0.96, 0.28, 0],
};
const obs = (name, args) => {
    const o = { kind: 'tool_calls', calls: [{ id: 'c1', name, arguments: JSON.stringify(args) }] };
    return {
        repeat: 1,
        status: 'ok',
        turns: [{ request: null, response: null, outcome: o, latencyMs: 1 }],
        latencyMs: 1,
        usage: { inputTokens: 1, outputTokens: 1 },
    };
};
const tool = (name, args, modes) => ({
    kind: 'tool',
    name,
    arguments: args,
    match_mode: modes,
});
const EXAMPLES = [
    {
        name: 'similar: cosine 0.96 ≥ 0.85 matches',
        line: {
            id: 'a',
            prompt: 'Running shoes for women?',
            expected: tool('search_products', { query: "women's running shoes" }, { query: 'similar' }),
        },
        answer: obs('search_products', { query: 'running shoes for women' }),
        pass: true,
        status: 'asked',
    },
    {
        name: "similar: the case's own threshold 0.99 > 0.96 fails",
        line: {
            id: 'b',
            prompt: 'Running shoes for women?',
            expected: tool('search_products', { query: "women's running shoes" }, { query: { similar: 0.99 } }),
        },
        answer: obs('search_products', { query: 'running shoes for women' }),
        pass: false,
        status: 'asked',
    },
    {
        name: 'similar: soft equality settles it, nothing embedded',
        line: {
            id: 'c',
            prompt: 'A red dress',
            expected: tool('search_products', { query: 'Red Dress' }, { query: 'similar' }),
        },
        answer: obs('search_products', { query: 'red  dress' }),
        pass: true,
        status: 'equal',
    },
    {
        name: 'judge: 7pm means 19:00',
        line: {
            id: 'd',
            prompt: 'Prague at 7pm',
            expected: tool('book_table', { city: 'Prague', time: '19:00' }, { time: 'judge' }),
        },
        answer: obs('book_table', { city: 'Prague', time: '7pm' }),
        pass: true,
        status: 'asked',
    },
    {
        name: 'judge: Brno is not Prague',
        line: {
            id: 'e',
            prompt: 'Prague at 8pm',
            expected: tool('book_table', { city: 'Prague', time: '20:00' }, { city: 'judge' }),
        },
        answer: obs('book_table', { city: 'Brno', time: '20:00' }),
        pass: false,
        status: 'asked',
    },
    {
        name: 'judge: an answer that is no verdict is invalid and fails',
        line: {
            id: 'f',
            prompt: 'Socks?',
            expected: tool('search_products', { query: 'socks' }, { query: 'judge' }),
        },
        answer: obs('search_products', { query: 'stockings' }),
        pass: false,
        status: 'invalid',
    },
];
export function argModesSelftest(schemas, check) {
    const embedded = [];
    const asked = [];
    const embedder = {
        model: 'selftest-embeddings',
        async embed(texts) {
            embedded.push(...texts);
            return { vectors: texts.map((t) => VECTORS[t]), inputTokens: texts.length };
        },
    };
    const client = {
        model: 'selftest-judge',
        judgeAs: (async (messages) => {
            const q = messages[1].content;
            asked.push(q);
            if (q.includes("THE MODEL'S VALUE: stockings"))
                return { invalid: 'the answer holds no JSON object', inputTokens: 10, outputTokens: 2, mode: 'text' };
            const same = q.includes("THE MODEL'S VALUE: 7pm");
            return { verdict: { same, reasoning: 'table' }, inputTokens: 10, outputTokens: 2, mode: 'json_schema' };
        }),
    };
    const memory = () => {
        const m = new Map();
        return { get: (k) => m.get(k), m };
    };
    const verdicts = memory();
    const vectors = memory();
    const setup = {
        system: '',
        redactor: createRedactor({ fields: [], patterns: [] }),
        judge: {
            settings: toJudgeSettings({
                provider: 'openai',
                model: 'selftest-judge',
                base_url: 'http://127.0.0.1:9',
                prompt_version: 'v1',
                temperature: 0,
                min_kappa: 0.6,
                min_labels: 50,
                timeout: '1s',
                max_retries: 0,
                max_retry_wait: '1s',
                concurrency: 1,
                price_per_million_input_tokens: 0,
                price_per_million_output_tokens: 0,
                gates: {},
            }, () => 1000),
            cache: { get: verdicts.get, put: (e) => void verdicts.m.set(e.hash, e) },
        },
        similar: {
            settings: {
                model: 'selftest-embeddings',
                baseUrl: 'http://127.0.0.1:9',
                threshold: 0.85,
                timeoutMs: 1000,
                maxRetries: 0,
                pricePerMillionInput: 0,
            },
            cache: { get: vectors.get, put: (e) => void vectors.m.set(e.key, e.vector) },
        },
    };
    const parsed = EXAMPLES.map((ex) => parseCases(JSON.stringify(ex.line), 'selftest', { tools: TOOLS, defaultMaxTurns: 1, schemas }).cases[0]);
    const pass = (session) => EXAMPLES.map((ex, i) => parsed[i]
        ? evaluate(parsed[i], ex.answer, { offered: TOOLS, schemas, clarification: /[?？]/u, argMatch: session.lookup })
        : undefined);
    return (async () => {
        const s = argMatchSession(setup);
        pass(s);
        await resolveArgMatches(s, { ...setup, client, embedder });
        const second = argMatchSession(setup);
        const evals = pass(second);
        for (const [i, ex] of EXAMPLES.entries()) {
            const e = evals[i];
            const m = e?.argMatches?.[0];
            const problems = [];
            if (!e)
                problems.push('case did not parse');
            else {
                if (e.strictPass !== ex.pass)
                    problems.push(`strictPass = ${e.strictPass}, want ${ex.pass}`);
                if (m?.status !== ex.status)
                    problems.push(`status = ${m?.status}, want ${ex.status}`);
            }
            check(ex.name, problems);
        }
        const b = evals[1]?.argMatches?.[0];
        check('similar: the score and threshold are reported', b?.score === 0.96 && b.threshold === 0.99 ? [] : [`got ${b?.score} / ${b?.threshold}`]);
        // Every distinct text once, three judge questions (an invalid answer is kept too); the second pass asks nothing.
        const resolved = await resolveArgMatches(second, { ...setup, client, embedder });
        check('judge and similar: each value asked once, the second pass from the cache', [
            ...(asked.length === 3 ? [] : [`judge asked ${asked.length} times, want 3`]),
            ...(embedded.length === 2 ? [] : [`embedded ${embedded.length} texts, want 2`]),
            ...(resolved.judge?.asked === 0 && resolved.judge.cached === 3 ? [] : ['the second pass asked the judge']),
        ]);
    })();
}
//# sourceMappingURL=selftest-args.js.map