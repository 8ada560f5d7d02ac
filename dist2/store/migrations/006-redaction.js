// store.redact_arguments fails closed: arguments the redactor could not handle are not stored, and
// the reason is kept in their place.
const sql = 'ALTER TABLE failures ADD COLUMN arguments_omitted TEXT;';
export const redaction = {
    version: 6,
    name: 'redaction: why a failure record carries no arguments',
    sqlite: sql,
    postgres: sql,
};
//# sourceMappingURL=006-redaction.js.map