// Issue 19: problems — failed calls grouped by signature (src/problems/signature.ts), written in the
// ingest batch's transaction like the counts. Per (service, id): the outcome, tool and canonical
// signature, first and last seen, occurrences and status; counts per hour and per model; a few kept
// examples (slot `first`, `latest`, `model:<model>`). id `_other` holds a service's overflow past
// problems.max_per_service.
const tables = (t) => `
    CREATE TABLE problems (
      service TEXT NOT NULL, id TEXT NOT NULL, outcome TEXT NOT NULL, tool TEXT NOT NULL,
      canonical TEXT NOT NULL, parts TEXT NOT NULL,
      first_seen_ms ${t.bigint} NOT NULL, last_seen_ms ${t.bigint} NOT NULL, occurrences ${t.bigint} NOT NULL,
      status TEXT NOT NULL, status_ms ${t.bigint} NOT NULL, muted_until_ms ${t.bigint},
      PRIMARY KEY (service, id)
    );
    CREATE TABLE problem_hours (
      service TEXT NOT NULL, id TEXT NOT NULL, hour ${t.bigint} NOT NULL, count ${t.bigint} NOT NULL,
      PRIMARY KEY (service, id, hour)
    );
    CREATE TABLE problem_models (
      service TEXT NOT NULL, id TEXT NOT NULL, model TEXT NOT NULL, count ${t.bigint} NOT NULL,
      first_seen_ms ${t.bigint} NOT NULL, last_seen_ms ${t.bigint} NOT NULL,
      PRIMARY KEY (service, id, model)
    );
    CREATE TABLE problem_examples (
      service TEXT NOT NULL, id TEXT NOT NULL, slot TEXT NOT NULL, time_ms ${t.bigint} NOT NULL,
      model TEXT NOT NULL, trace_id TEXT NOT NULL, span_id TEXT NOT NULL, name TEXT NOT NULL,
      arguments TEXT, message TEXT NOT NULL,
      PRIMARY KEY (service, id, slot)
    );
`;
export const problems = {
    version: 11,
    name: 'problems: failed calls grouped by signature, per hour and model, with kept examples',
    sqlite: tables({ bigint: 'INTEGER' }),
    postgres: tables({ bigint: 'BIGINT' }),
};
//# sourceMappingURL=011-problems.js.map