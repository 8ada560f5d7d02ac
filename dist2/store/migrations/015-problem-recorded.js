// Issue 19, alerts: when toolwatch first wrote a problem (its wall clock, not the spans' time), so
// `new_problem` fires when a signature is first recorded whatever the age of its spans — and a
// problem reopened by hand or unmuted is not taken for a new one. NULL for problems recorded
// before this column existed: they never page as new.
const column = (bigint) => `ALTER TABLE problems ADD COLUMN recorded_ms ${bigint};`;
export const problemRecorded = {
    version: 15,
    name: 'problems: the time a problem was first recorded',
    sqlite: column('INTEGER'),
    postgres: column('BIGINT'),
};
//# sourceMappingURL=015-problem-recorded.js.map