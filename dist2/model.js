/**
 * The shared vocabulary of toolwatch. Every stage speaks these types; none of them knows
 * about HTTP, protobuf, a database or a clock.
 */
export const EXECUTION_STATUSES = [
    'ok',
    'client_error',
    'server_error',
    'error',
    'tool_error',
];
export const FAILED_EXECUTION_STATUSES = [
    'client_error',
    'server_error',
    'error',
    'tool_error',
];
/** Why a call could not be checked: the `reason` label of toolwatch_unvalidated_calls_total. */
export const UNVALIDATED_REASONS = [
    'no_arguments',
    'no_schema',
    'bad_schema',
    'no_name',
    'too_large',
    'too_deep',
    'budget',
    'check_error',
];
/**
 * Why arguments were not a JSON object (src/check/invalid-json-cause.ts): the `reason` of an
 * InvalidJson call's aggregate and failure record, and of toolwatch_invalid_json_total.
 */
export const INVALID_JSON_CAUSES = [
    'truncated',
    'concatenated',
    'python_literal',
    'trailing_text',
    'not_object',
    'empty',
    'other',
];
export const OUTCOMES = [
    'valid',
    'InvalidJson',
    'UnknownName',
    'SchemaMismatch',
    'unvalidated',
];
export const FAILURE_OUTCOMES = ['InvalidJson', 'UnknownName', 'SchemaMismatch'];
export function isFailure(o) {
    return o === 'InvalidJson' || o === 'UnknownName' || o === 'SchemaMismatch';
}
/** The tool label of an UnknownName call: a name the model invented is never a label value. */
export const UNKNOWN_TOOL = '_unknown';
/** The tool label of a call or execution no span named (never the empty string). */
export const UNNAMED_TOOL = '_unnamed';
/** The tool a call is counted under: an invented name is `_unknown`, a missing one `_unnamed`. */
export function countedTool(outcome, name) {
    return outcome === 'UnknownName' ? UNKNOWN_TOOL : name === '' ? UNNAMED_TOOL : name;
}
//# sourceMappingURL=model.js.map