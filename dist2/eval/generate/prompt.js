/** Recorded with every draft; bump when the instructions change what is asked. */
export const PROMPT_VERSION = 'generate-v1';
export const CATEGORIES = {
    clear_selection: {
        expect: 'tool',
        ask: 'a request that clearly needs this tool, with every required value given in the message',
    },
    confusable: {
        expect: 'tool',
        ask: 'a request for this tool worded so that another offered tool with a similar purpose is tempting, yet this one is right',
    },
    abstention: {
        expect: 'text',
        ask: 'a request near this tool’s topic that no offered tool can or should serve (small talk, general knowledge, an action no tool offers); the right answer calls no tool',
    },
    argument_stress: {
        expect: 'tool',
        ask: 'a request for this tool whose values need conversion or normalisation (units, dates, number words, casing, formats) to reach the exact arguments',
    },
    missing_info: {
        expect: 'clarification',
        ask: 'a request for this tool that lacks a required value, so the assistant must ask for it; list the missing argument names',
    },
    multi_call: {
        expect: 'tool',
        ask: 'a request that needs two or more calls in one answer (this tool at least once), each with its exact arguments',
    },
    edge_case: {
        expect: 'tool',
        ask: 'a request for this tool with edge-case input: non-ASCII or mixed scripts, emoji, very long strings, leading zeros, quotes, whitespace',
    },
};
export const CATEGORY_NAMES = Object.keys(CATEGORIES);
export const SUBMIT_TOOL = 'submit_cases';
/** The structured answer: a list of drafts. Validated on receipt with the same schema. */
export const DRAFTS_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    required: ['cases'],
    properties: {
        cases: {
            type: 'array',
            items: {
                type: 'object',
                additionalProperties: false,
                required: ['prompt', 'expect'],
                properties: {
                    prompt: { type: 'string', minLength: 1, description: 'The user message, as a user would write it.' },
                    expect: { enum: ['tool', 'text', 'clarification'], description: 'What the right answer is.' },
                    calls: {
                        type: 'array',
                        description: 'For expect=tool: every call the right answer makes, with exact arguments.',
                        items: {
                            type: 'object',
                            additionalProperties: false,
                            required: ['name', 'arguments'],
                            properties: { name: { type: 'string' }, arguments: { type: 'object' } },
                        },
                    },
                    missing: {
                        type: 'array',
                        items: { type: 'string' },
                        description: 'For expect=clarification: the argument names the user did not give.',
                    },
                    why: { type: 'string', description: 'One sentence: what this case tests.' },
                },
            },
        },
    },
};
export const SUBMIT_TOOL_DEF = {
    name: SUBMIT_TOOL,
    description: 'Submit the drafted evaluation cases.',
    parameters: DRAFTS_SCHEMA,
};
export function generationMessages(o) {
    const c = CATEGORIES[o.category];
    const system = [
        'You write evaluation cases for an assistant that calls tools. Each case is one user message and',
        'the one right answer. Arguments must be exact JSON values valid against the tool’s schema; never',
        'invent a tool. Vary wording, length and language; no two cases may be the same request.',
        `Answer only by calling ${SUBMIT_TOOL}.`,
        '',
        'The assistant’s system prompt:',
        o.system || '(none)',
        '',
        'The assistant’s tools (JSON):',
        JSON.stringify(o.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))),
    ].join('\n');
    const user = `Draft ${o.n} case(s) for the tool ${o.tool}, category ${o.category}: ${c.ask}. ` +
        `Set expect to "${c.expect}"${c.expect === 'tool' ? ' and give the calls' : c.expect === 'clarification' ? ' and list missing' : ' and no calls'}.`;
    return [
        { role: 'system', content: system },
        { role: 'user', content: user },
    ];
}
//# sourceMappingURL=prompt.js.map