/**
 * `eval selftest`: the scoring logic on built-in examples, no model and no network. Each example is
 * a case line (a call-list, kind or expected_tool case) and the answers a model might give; the same parser,
 * production checker and scorer as `run`/`score` judge it, and the verdict must be the one written
 * here. It proves the scoring works on this install; it says nothing about any model.
 */
import { SchemaCache } from '../check/schema-cache.js';
import { parseCases } from './cases.js';
import { evaluate, missing } from './evaluate.js';
import { computeMetrics } from './score.js';
import { argModesSelftest } from './selftest-args.js';
import { judgeSelftest } from './selftest-judge.js';
const obj = (properties, required) => ({
    type: 'object',
    properties,
    required,
    additionalProperties: false,
});
const TOOLS = [
    { name: 'get_item', parameters: obj({ item_id: { type: 'string' } }, ['item_id']) },
    { name: 'get_stock', parameters: obj({ sku: { type: 'string' } }, ['sku']) },
    {
        name: 'search_orders',
        parameters: obj({
            email: { type: 'string' },
            status: { type: 'string', enum: ['processing', 'shipped', 'delivered', 'cancelled'] },
            limit: { type: 'integer', minimum: 1, maximum: 20 },
        }, ['email']),
    },
    {
        name: 'get_shipping_quote',
        parameters: obj({ country_code: { type: 'string' }, postal_code: { type: 'string' }, weight_grams: { type: 'integer' } }, ['country_code', 'postal_code', 'weight_grams']),
    },
    { name: 'lookup_order', parameters: obj({ order_id: { type: 'string', pattern: '^ORD-[0-9]{6}$' } }, ['order_id']) },
];
const call = (name, args) => ({
    kind: 'tool_calls',
    calls: [{ id: `c-${name}`, name, arguments: args }],
});
const text = (t) => ({ kind: 'text', text: t });
const errorResult = [{ callId: 'x', name: 'x', content: '{"ok":false}', isError: true }];
const callList = (id, user, expected) => ({ id, user, expected });
const EXAMPLES = [
    {
        name: 'call-list case: the right call',
        line: callList('a', 'SKU-204 in stock?', [{ name: 'get_stock', arguments: { sku: 'SKU-204' } }]),
        answers: [call('get_stock', '{"sku":"SKU-204"}')],
        want: { selectionPass: true, exactMatch: true, strictPass: true, outcome: 'valid' },
    },
    {
        name: 'call-list case: wrong tool',
        line: callList('b', 'SKU-204 in stock?', [{ name: 'get_stock', arguments: { sku: 'SKU-204' } }]),
        answers: [call('get_item', '{"item_id":"SKU-204"}')],
        want: { selectionPass: false, argsPass: null, strictPass: false, decisionLabel: 'get_item' },
    },
    {
        name: 'call-list case: invented tool is UnknownName',
        line: callList('c', 'Delete SKU-305', []),
        answers: [call('delete_item', '{"sku":"SKU-305"}')],
        want: { selectionPass: false, strictPass: false, outcome: 'UnknownName' },
    },
    {
        name: 'call-list case: broken JSON is InvalidJson',
        line: callList('d', 'SKU-204 in stock?', [{ name: 'get_stock', arguments: { sku: 'SKU-204' } }]),
        answers: [call('get_stock', '{"sku": SKU-204')],
        want: { selectionPass: true, argsPass: false, exactMatch: false, strictPass: false, outcome: 'InvalidJson' },
    },
    {
        name: 'call-list case: extra key breaks the schema',
        line: callList('e', 'SKU-204 in stock?', [{ name: 'get_stock', arguments: { sku: 'SKU-204' } }]),
        answers: [call('get_stock', '{"sku":"SKU-204","warehouse":"B"}')],
        want: { selectionPass: true, argsPass: false, strictPass: false, outcome: 'SchemaMismatch' },
    },
    {
        name: 'call-list case: text when no call is expected',
        line: callList('f', 'Hello', []),
        answers: [text('Hi! How can I help?')],
        want: { selectionPass: true, exactMatch: true, strictPass: true },
    },
    {
        name: 'call-list case: a provider error is not a correct non-call',
        line: callList('g', 'Hello', []),
        answers: ['error'],
        want: { status: 'provider_error', selectionPass: false, exactMatch: false, strictPass: false },
    },
    {
        name: 'call-list case: a missing prediction fails',
        line: callList('h', 'Hello', []),
        answers: null,
        want: { status: 'missing', strictPass: false, decisionLabel: '(missing)' },
    },
    {
        name: 'kind case: requiredEquals + optional limit in range',
        line: {
            id: 'i',
            prompt: 'Shipped orders, sam@example.test',
            expected: {
                kind: 'tool',
                name: 'search_orders',
                arguments: {
                    requiredEquals: { email: 'sam@example.test', status: 'shipped' },
                    optional: ['limit'],
                    constraints: { limit: { integer: true, minimum: 1, maximum: 20 } },
                },
            },
        },
        answers: [call('search_orders', '{"email":"sam@example.test","status":"shipped","limit":5}')],
        want: { argsPass: true, exactMatch: false, strictPass: true },
    },
    {
        name: 'kind case: "750" is not 750 (no coercion)',
        line: {
            id: 'j',
            prompt: 'Quote 750 g to US 02139',
            expected: {
                kind: 'tool',
                name: 'get_shipping_quote',
                arguments: { country_code: 'US', postal_code: '02139', weight_grams: 750 },
            },
        },
        answers: [call('get_shipping_quote', '{"country_code":"US","postal_code":"02139","weight_grams":"750"}')],
        want: { argsPass: false, strictPass: false, outcome: 'SchemaMismatch' },
    },
    {
        name: 'kind case: leading zero lost is a wrong value, not a schema error',
        line: {
            id: 'k',
            prompt: 'Quote 750 g to US 02139',
            expected: {
                kind: 'tool',
                name: 'get_shipping_quote',
                arguments: { country_code: 'US', postal_code: '02139', weight_grams: 750 },
            },
        },
        answers: [call('get_shipping_quote', '{"country_code":"US","postal_code":"2139","weight_grams":750}')],
        want: { selectionPass: true, argsPass: false, strictPass: false, outcome: 'valid' },
    },
    {
        name: 'kind case: clarification asked',
        line: {
            id: 'l',
            prompt: 'Express to Germany, 750 g?',
            expected: { kind: 'clarification', missing: ['postal_code'] },
        },
        answers: [text('Which postal code should I use?')],
        want: { clarified: true, strictPass: true },
    },
    {
        name: 'kind case: guessing instead of asking fails',
        line: {
            id: 'm',
            prompt: 'Express to Germany, 750 g?',
            expected: { kind: 'clarification', missing: ['postal_code'] },
        },
        answers: [call('get_shipping_quote', '{"country_code":"DE","postal_code":"10115","weight_grams":750}')],
        want: { selectionPass: false, strictPass: false },
    },
    {
        name: 'expected_tool case: soft match forgives case and accents',
        line: {
            id: 'n',
            user_message: 'Orders of Novák',
            expected_tool: 'search_orders',
            expected_args: { email: 'Novák@example.test' },
            match_mode: { email: 'soft' },
        },
        answers: [call('search_orders', '{"email":"novak@example.test"}')],
        want: { argsPass: true, exactMatch: false, strictPass: true },
    },
    {
        name: 'expected_tool case: asking when the data was there is a needless clarification',
        line: {
            id: 'o',
            user_message: 'Where is ORD-104821?',
            expected_tool: 'lookup_order',
            expected_args: { order_id: 'ORD-104821' },
            match_mode: {},
        },
        answers: [text('Could you confirm the order number?')],
        want: { selectionPass: false, clarified: true, strictPass: false },
    },
    {
        name: 'trajectory superset: extra calls allowed',
        line: {
            id: 'p',
            prompt: 'ORD-104821 and SKU-9',
            expected_trajectory: {
                calls: [{ name: 'lookup_order', arguments: { order_id: 'ORD-104821' } }],
                match: 'superset',
            },
        },
        answers: [call('get_stock', '{"sku":"SKU-9"}'), call('lookup_order', '{"order_id":"ORD-104821"}'), text('done')],
        want: { strictPass: true, selectionPass: null },
    },
    {
        name: 'trajectory strict: order matters',
        line: {
            id: 'q',
            prompt: 'x',
            expected_trajectory: {
                calls: [
                    { name: 'get_item', arguments: { item_id: 'A' } },
                    { name: 'get_stock', arguments: { sku: 'A' } },
                ],
                match: 'strict',
            },
        },
        answers: [call('get_stock', '{"sku":"A"}'), call('get_item', '{"item_id":"A"}'), text('done')],
        want: { strictPass: false },
    },
    {
        name: 'trajectory unordered: any order',
        line: {
            id: 'r',
            prompt: 'x',
            expected_trajectory: {
                calls: [
                    { name: 'get_item', arguments: { item_id: 'A' } },
                    { name: 'get_stock', arguments: { sku: 'A' } },
                ],
                match: 'unordered',
            },
        },
        answers: [call('get_stock', '{"sku":"A"}'), call('get_item', '{"item_id":"A"}'), text('done')],
        want: { strictPass: true },
    },
    {
        name: 'recovery: a rejected call repaired within max_turns',
        line: {
            id: 's',
            prompt: 'Where is order 104821?',
            expected: { kind: 'tool', name: 'lookup_order', arguments: { order_id: 'ORD-104821' } },
            max_turns: 3,
        },
        answers: [
            call('lookup_order', '{"order_id":"104821"}'),
            call('lookup_order', '{"order_id":"ORD-104821"}'),
            text('It shipped.'),
        ],
        errorAfter: [0],
        want: { selectionPass: true, argsPass: false, strictPass: true, recovered: true },
    },
];
function observation(answers, errorAfter = []) {
    const turns = answers.map((a, i) => ({
        request: null,
        response: null,
        outcome: a === 'error' ? { kind: 'provider_error', code: 'rate_limited', message: '429', status: 429 } : a,
        latencyMs: 10,
        ...(errorAfter.includes(i) ? { toolResults: errorResult } : {}),
    }));
    const failed = answers.includes('error');
    return {
        repeat: 1,
        status: failed ? 'provider_error' : 'ok',
        ...(failed ? { error: { code: 'rate_limited', message: '429', status: 429 } } : {}),
        turns,
        latencyMs: 10 * turns.length,
        usage: { inputTokens: 100, outputTokens: 10 },
    };
}
export async function runSelftest() {
    const schemas = new SchemaCache();
    const out = { passed: 0, failed: 0, lines: [] };
    const check = (name, problems) => {
        if (problems.length) {
            out.failed++;
            out.lines.push(`FAIL ${name}: ${problems.join('; ')}`);
        }
        else {
            out.passed++;
            out.lines.push(`ok   ${name}`);
        }
    };
    const evals = [];
    const cases = [];
    for (const ex of EXAMPLES) {
        const parsed = parseCases(JSON.stringify(ex.line), 'selftest', { tools: TOOLS, defaultMaxTurns: 4, schemas });
        const c = parsed.cases[0];
        if (!c) {
            check(ex.name, [`case did not parse: ${parsed.problems.join('; ')}`]);
            continue;
        }
        const ctx = { offered: TOOLS, schemas, clarification: /[?？]/u };
        const e = ex.answers ? evaluate(c, observation(ex.answers, ex.errorAfter), ctx) : missing(c, 1);
        const problems = [];
        for (const [k, v] of Object.entries(ex.want)) {
            const got = k === 'outcome' ? e.calls[0]?.outcome : e[k];
            if (got !== v)
                problems.push(`${k} = ${JSON.stringify(got)}, want ${JSON.stringify(v)}`);
        }
        check(ex.name, problems);
        evals.push(e);
        cases.push({ case: c, evals: [e] });
    }
    // The aggregate of the 19 examples above, counted by hand from their verdicts.
    const m = computeMetrics(cases, 1);
    const want = [
        ['strictPassRate', 8, 19], // a f i l n p r s
        ['selectionAccuracy', 10, 16], // not b c g h m o; trajectories have no single decision
        ['exactMatchRate', 3, 16], // a f l
        ['shouldCallPassRate', 1, 10], // a
        ['shouldNotCallPassRate', 2, 6], // f l
        ['argsAccuracy', 3, 8], // a i n, of the tool cases whose selection passed
        ['clarificationAccuracy', 1, 2], // l
        ['needlessClarificationRate', 1, 10], // o
        ['recoveryRate', 1, 1], // s
        ['trajectoryPassRate', 2, 3], // p r
        ['coverage', 17, 19], // not g (provider error) or h (missing)
    ];
    for (const [k, n, d] of want) {
        const r = m[k];
        check(`aggregate ${k} = ${n}/${d}`, r.numerator === n && r.denominator === d ? [] : [`got ${r.numerator}/${r.denominator}`]);
    }
    judgeSelftest(TOOLS, schemas, check);
    await argModesSelftest(schemas, check);
    return out;
}
//# sourceMappingURL=selftest.js.map