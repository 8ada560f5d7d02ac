import { isRecord, parseJson, str, takeJsonValue } from '../util/values.js';
const MAX_REASONS = 16;
const MAX_REASON = 64;
const MAX_JSON = 256 * 1024;
const INDEXED = /^(?:gen_ai\.completion|llm\.completions)\.\d+\.finish_reason$/;
/** Sets `f.finishReasons` when the span reports any. */
export function setFinishReasons(f, span) {
    const reasons = finishReasonsOf(span);
    if (reasons.length > 0)
        f.finishReasons = reasons;
}
export function finishReasonsOf(span) {
    const out = new Set();
    const add = (v) => {
        if (typeof v === 'string' && v !== '' && out.size < MAX_REASONS)
            out.add(v.slice(0, MAX_REASON));
    };
    const a = span.attributes;
    const listed = a['gen_ai.response.finish_reasons'];
    if (Array.isArray(listed))
        listed.forEach(add);
    else if (typeof listed === 'string') {
        const parsed = listed.startsWith('[') ? json(listed) : undefined;
        if (Array.isArray(parsed))
            parsed.forEach(add);
        else
            add(listed);
    }
    add(str(a, 'ai.response.finishReason'));
    for (const key of Object.keys(a))
        if (INDEXED.test(key))
            add(a[key]);
    const messages = jsonAttr(a, 'gen_ai.output.messages');
    if (Array.isArray(messages))
        for (const m of messages)
            if (isRecord(m))
                add(m['finish_reason']);
    for (const e of span.events)
        if (e.name === 'gen_ai.choice')
            add(e.attributes['finish_reason']);
    const output = jsonAttr(a, 'output.value');
    if (isRecord(output)) {
        add(output['finish_reason']);
        add(output['stop_reason']);
        for (const list of [output['choices'], output['candidates']])
            if (Array.isArray(list))
                for (const c of list)
                    if (isRecord(c))
                        add(c['finish_reason'] ?? c['finishReason']);
    }
    return [...out];
}
function jsonAttr(a, key) {
    const v = a[key];
    // The reader has just parsed the model output (genai.ts): that parse, not a second one.
    if (typeof v === 'string')
        return v.length <= MAX_JSON ? (takeJsonValue(v) ?? { value: parseJson(v) }).value : undefined;
    return Array.isArray(v) || isRecord(v) ? v : undefined;
}
function json(s) {
    return s.length <= MAX_JSON ? parseJson(s) : undefined;
}
//# sourceMappingURL=finish-reasons.js.map