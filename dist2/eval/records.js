/**
 * The predictions file: JSONL, append-only. A `run` line opens each run (its settings), then one
 * `result` line per case × repeat × model × variant as it completes. Reading accepts several files
 * and several runs per file; for each model and variant the latest run that has it is scored
 * (or the run named with --run-id).
 */
import { appendFileSync, readFileSync } from 'node:fs';
export function appendRecord(file, r) {
    appendFileSync(file, `${JSON.stringify(r)}\n`);
}
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
export function readRecords(files) {
    const out = { runs: [], results: [], problems: [] };
    for (const file of files) {
        let text;
        try {
            text = readFileSync(file, 'utf8');
        }
        catch (err) {
            out.problems.push(`${file}: ${err.message}`);
            continue;
        }
        const lines = text.split('\n');
        lines.forEach((line, i) => {
            if (line.trim() === '')
                return;
            let v;
            try {
                v = JSON.parse(line);
            }
            catch (err) {
                // An interrupted run can leave a cut last line: that record is missing, not the file broken.
                if (i === lines.length - 1)
                    return;
                out.problems.push(`${file}:${i + 1}: not valid JSON (${err.message})`);
                return;
            }
            if (isObj(v) && v.type === 'run' && typeof v.runId === 'string')
                out.runs.push(v);
            else if (isObj(v) &&
                v.type === 'result' &&
                typeof v.runId === 'string' &&
                typeof v.caseId === 'string' &&
                Array.isArray(v.turns)) {
                out.results.push(v);
            }
            else
                out.problems.push(`${file}:${i + 1}: not a toolwatch eval record (type run or result)`);
        });
    }
    return out;
}
export const modelKey = (label, variant) => (variant === 'core' ? label : `${label} [${variant}]`);
/**
 * The results to score: per model label and variant, those of the latest run (file order) that
 * has any — or of `runId` only. Within a run, a later record for the same case and repeat wins.
 */
export function selectResults(read, runId) {
    const pool = runId ? read.results.filter((r) => r.runId === runId) : read.results;
    const latestRun = new Map();
    for (const r of pool)
        latestRun.set(modelKey(r.label, r.variant), r.runId);
    const chosen = new Map();
    for (const r of pool) {
        const mk = modelKey(r.label, r.variant);
        if (latestRun.get(mk) !== r.runId)
            continue;
        chosen.set(`${mk}\u0000${r.caseId}\u0000${r.repeat}`, r);
    }
    return [...chosen.values()];
}
//# sourceMappingURL=records.js.map