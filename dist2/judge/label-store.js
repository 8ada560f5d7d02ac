/** Human labels (labels.jsonl) and the judge's latest verdict beside each, for calibration. */
import { num } from '../store/rows.js';
export class LabelStore {
    sql;
    constructor(sql) {
        this.sql = sql;
    }
    async upsertLabels(labels, nowMs) {
        return this.sql.tx(async (tx) => {
            for (const l of labels) {
                await tx.run(`INSERT INTO judge_labels (trace_id, reached_goal, unnecessary_calls, dangerous_calls, labeler, note, time_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (trace_id) DO UPDATE SET reached_goal = excluded.reached_goal, unnecessary_calls = excluded.unnecessary_calls,
             dangerous_calls = excluded.dangerous_calls, labeler = excluded.labeler, note = excluded.note, time_ms = excluded.time_ms`, [
                    l.trace_id.toLowerCase(),
                    l.reached_goal ? 1 : 0,
                    l.unnecessary_calls,
                    l.dangerous_calls,
                    l.labeler ?? 'human',
                    l.note ?? '',
                    nowMs,
                ]);
            }
            return labels.length;
        });
    }
    async labelPairs() {
        // The latest successful verdict per labelled trace.
        const rows = await this.sql.all(`SELECT v.reached_goal AS vg, v.unnecessary_calls AS vu, v.dangerous_calls AS vd, l.reached_goal AS lg, l.unnecessary_calls AS lu, l.dangerous_calls AS ld
       FROM judge_labels l JOIN judge_verdicts v ON v.trace_id = l.trace_id
       WHERE v.id = (SELECT MAX(id) FROM judge_verdicts w WHERE w.trace_id = l.trace_id AND w.status = 'ok')`);
        return rows.map((r) => ({
            judge: { reached_goal: num(r.vg) === 1, unnecessary_calls: num(r.vu), dangerous_calls: num(r.vd) },
            human: { reached_goal: num(r.lg) === 1, unnecessary_calls: num(r.lu), dangerous_calls: num(r.ld) },
        }));
    }
}
//# sourceMappingURL=label-store.js.map