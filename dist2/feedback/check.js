/**
 * POST /api/feedback items: `{trace_id, value, comment?, source?, service?}`. Checked as sent —
 * no coercion, no defaults beyond `source: "api"`, unknown keys refused. Pure.
 */
import { Ajv } from 'ajv';
import { normalizeTraceId, parseFeedbackValue, VALUE_HELP } from './value.js';
const itemSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['trace_id', 'value'],
    properties: {
        trace_id: { type: 'string', minLength: 1, maxLength: 200, pattern: '^\\S+$' },
        value: {},
        comment: { type: 'string', maxLength: 2000 },
        source: { type: 'string', minLength: 1, maxLength: 100 },
        service: { type: 'string', minLength: 1, maxLength: 200 },
    },
};
const ajv = new Ajv({ allErrors: true, strict: true });
const validate = ajv.compile(itemSchema);
export function checkFeedback(v, nowMs) {
    if (!validate(v)) {
        const errors = (validate.errors ?? []).map((e) => e.keyword === 'additionalProperties'
            ? `unknown key ${JSON.stringify(e.params.additionalProperty)}`
            : `${e.instancePath.slice(1) || '(item)'} ${e.message ?? 'is invalid'}`);
        return { ok: false, error: errors.join('; ') };
    }
    const value = parseFeedbackValue(v.value);
    if (value === undefined)
        return { ok: false, error: `value: must be ${VALUE_HELP}` };
    return {
        ok: true,
        value: {
            traceId: normalizeTraceId(v.trace_id),
            value,
            ...(v.comment ? { comment: v.comment } : {}),
            source: v.source ?? 'api',
            ...(v.service ? { service: v.service } : {}),
            timeMs: nowMs,
            origin: 'api',
        },
    };
}
//# sourceMappingURL=check.js.map