// Issue 19: what each problem costs — its repair turns (src/efficiency/repairs.ts), written with the
// completed trajectory's statistics: per (service, problem id, model of the failure, UTC day the
// repair ended) how many repairs, how many were repaired (a valid call of the same tool came), the
// retries within them, the model steps, input and output tokens and wall time. Priced at read time
// with problems.prices, so a changed price table applies to the whole history.
const tables = (t) => `
    CREATE TABLE problem_costs (
      service TEXT NOT NULL, id TEXT NOT NULL, model TEXT NOT NULL, day ${t.bigint} NOT NULL,
      repairs ${t.bigint} NOT NULL, repaired ${t.bigint} NOT NULL, retries ${t.bigint} NOT NULL,
      steps ${t.bigint} NOT NULL, input_tokens ${t.bigint} NOT NULL, output_tokens ${t.bigint} NOT NULL,
      duration_ms ${t.bigint} NOT NULL,
      PRIMARY KEY (service, id, model, day)
    );
`;
export const problemCosts = {
    version: 14,
    name: 'problem costs: repair turns per problem, model and day',
    sqlite: tables({ bigint: 'INTEGER' }),
    postgres: tables({ bigint: 'BIGINT' }),
};
//# sourceMappingURL=014-problem-costs.js.map