import { DURATION_PROBLEM, durationSchema } from './duration.js';
/** One JSON Schema error in words, as every config problem says it (the caller puts the path first). */
export function schemaProblem(e) {
    if (e.keyword === 'enum')
        return `must be one of ${e.params.allowedValues.join(', ')}`;
    if (e.keyword === 'pattern' && e.params.pattern === durationSchema.pattern)
        return DURATION_PROBLEM;
    return e.message ?? 'is invalid';
}
//# sourceMappingURL=schema-problem.js.map