// Issue 19: an InvalidJson failure record keeps its cause (`truncated`, `concatenated`, `python_literal`,
// `trailing_text`, `not_object`, `empty`, `other`: src/check/invalid-json-cause.ts) in `reason`; NULL
// for other outcomes and for rows written before. The call aggregates already have a reason column.
const sql = 'ALTER TABLE failures ADD COLUMN reason TEXT;';
export const invalidJsonReason = {
    version: 10,
    name: 'the cause of an InvalidJson failure record',
    sqlite: sql,
    postgres: sql,
};
//# sourceMappingURL=010-invalid-json-reason.js.map