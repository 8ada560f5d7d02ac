/**
 * The judge's verdicts and runs over the store's SQL port: a verdict recorded with its trajectory's
 * new status, the runs that made them, and what the API, the alert kind and the export read back.
 */
import { num, numOrNull, optStr } from '../store/rows.js';
import { servicesMatch } from '../store/sql.js';
export class VerdictStore {
    sql;
    constructor(sql) {
        this.sql = sql;
    }
    async recordVerdict(v) {
        await this.sql.tx(async (tx) => {
            await tx.run(`INSERT INTO judge_verdicts (trace_id, run_id, time_ms, service, model, status, reached_goal, unnecessary_calls, dangerous_calls, reasoning, error,
           prompt_version, judge_model, probability, weight, input_tokens, output_tokens, cost, agent_tokens, agent_tool_calls)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
                v.traceId,
                v.runId,
                v.timeMs,
                v.service,
                v.model,
                v.status,
                v.verdict ? (v.verdict.reached_goal ? 1 : 0) : null,
                v.verdict?.unnecessary_calls ?? null,
                v.verdict?.dangerous_calls ?? null,
                v.verdict?.reasoning ?? null,
                v.error ?? null,
                v.promptVersion,
                v.judgeModel,
                v.probability,
                v.weight,
                v.inputTokens,
                v.outputTokens,
                v.cost,
                v.agentTokens ?? null,
                v.agentToolCalls ?? null,
            ]);
            await tx.run(`UPDATE judge_trajectories SET status = ?, attempts = attempts + 1, last_error = ?, updated_ms = ? WHERE trace_id = ?`, [v.status === 'ok' ? 'judged' : 'error', v.error ?? null, v.timeMs, v.traceId]);
        });
    }
    async startRun(startedMs, promptVersion, judgeModel) {
        const [r] = await this.sql.all(`INSERT INTO judge_runs (started_ms, status, prompt_version, judge_model) VALUES (?, 'running', ?, ?) RETURNING id`, [startedMs, promptVersion, judgeModel]);
        return num(r?.id);
    }
    async finishRun(r) {
        await this.sql.run(`UPDATE judge_runs SET finished_ms = ?, status = ?, judged = ?, errors = ?, left_pending = ?, input_tokens = ?, output_tokens = ?, cost = ?, stop_reason = ? WHERE id = ?`, [
            r.finishedMs,
            r.status,
            r.judged,
            r.errors,
            r.leftPending,
            r.inputTokens,
            r.outputTokens,
            r.cost,
            r.stopReason,
            r.id,
        ]);
    }
    async runs(limit) {
        const rows = await this.sql.all('SELECT * FROM judge_runs ORDER BY id DESC LIMIT ?', [limit]);
        return rows.map((r) => ({
            id: num(r.id),
            startedMs: num(r.started_ms),
            finishedMs: r.finished_ms === null ? null : num(r.finished_ms),
            status: String(r.status),
            judged: num(r.judged),
            errors: num(r.errors),
            leftPending: num(r.left_pending),
            inputTokens: num(r.input_tokens),
            outputTokens: num(r.output_tokens),
            cost: num(r.cost),
            stopReason: optStr(r.stop_reason) ?? null,
            promptVersion: String(r.prompt_version),
            judgeModel: String(r.judge_model),
        }));
    }
    async verdictPoints(q) {
        const where = ["status = 'ok'"];
        const args = [];
        if (q.sinceMs !== undefined)
            where.push('time_ms >= ?'), args.push(q.sinceMs);
        if (q.service)
            where.push('service = ?'), args.push(q.service);
        if (q.services)
            where.push(servicesMatch(this.sql.dialect, 'service', q.services, (v) => (args.push(v), '?')));
        if (q.runIds) {
            if (q.runIds.length === 0)
                return [];
            where.push(`run_id IN (${q.runIds.map(() => '?').join(', ')})`);
            args.push(...q.runIds);
        }
        const rows = await this.sql.all(`SELECT trace_id, service, model, run_id, reached_goal, unnecessary_calls, dangerous_calls, weight, agent_tokens
       FROM judge_verdicts WHERE ${where.join(' AND ')} ORDER BY id`, args);
        return rows.map((r) => ({
            traceId: String(r.trace_id),
            service: String(r.service),
            model: String(r.model),
            runId: num(r.run_id),
            reachedGoal: num(r.reached_goal) === 1,
            unnecessaryCalls: num(r.unnecessary_calls),
            dangerousCalls: num(r.dangerous_calls),
            weight: num(r.weight),
            agentTokens: numOrNull(r.agent_tokens),
        }));
    }
    /** The latest successful verdict per trace (judged since sinceMs; for one service; of these traces). */
    async latestVerdicts(q) {
        const where = [
            "v.status = 'ok'",
            "v.id = (SELECT MAX(w.id) FROM judge_verdicts w WHERE w.trace_id = v.trace_id AND w.status = 'ok')",
        ];
        const args = [];
        if (q.sinceMs !== undefined)
            where.push('v.time_ms >= ?'), args.push(q.sinceMs);
        if (q.service)
            where.push('v.service = ?'), args.push(q.service);
        if (q.services)
            where.push(servicesMatch(this.sql.dialect, 'v.service', q.services, (v) => (args.push(v), '?')));
        if (q.traceIds) {
            if (q.traceIds.length === 0)
                return new Map();
            where.push(`v.trace_id IN (${q.traceIds.map(() => '?').join(', ')})`);
            args.push(...q.traceIds);
        }
        const rows = await this.sql.all(`SELECT v.trace_id, v.service, v.model, v.time_ms, v.reached_goal, v.unnecessary_calls, v.dangerous_calls, v.reasoning FROM judge_verdicts v
       WHERE ${where.join(' AND ')} ORDER BY v.time_ms DESC`, args);
        return new Map(rows.map((r) => [
            String(r.trace_id),
            {
                service: String(r.service),
                model: String(r.model),
                timeMs: num(r.time_ms),
                reached_goal: num(r.reached_goal) === 1,
                unnecessary_calls: num(r.unnecessary_calls),
                dangerous_calls: num(r.dangerous_calls),
                ...(optStr(r.reasoning) !== undefined ? { reasoning: optStr(r.reasoning) } : {}),
            },
        ]));
    }
    /** Verdicts and the human label of one trace (for the trajectory API). */
    async judgementsOf(traceId) {
        const verdicts = await this.sql.all('SELECT * FROM judge_verdicts WHERE trace_id = ? ORDER BY id', [traceId]);
        const [label] = await this.sql.all('SELECT * FROM judge_labels WHERE trace_id = ?', [traceId]);
        const bool = (v) => (v === null || v === undefined ? null : num(v) === 1);
        return {
            verdicts: verdicts.map((v) => ({
                runId: num(v.run_id),
                time: new Date(num(v.time_ms)).toISOString(),
                status: v.status,
                reached_goal: bool(v.reached_goal),
                unnecessary_calls: v.unnecessary_calls === null ? null : num(v.unnecessary_calls),
                dangerous_calls: v.dangerous_calls === null ? null : num(v.dangerous_calls),
                reasoning: v.reasoning ?? null,
                error: v.error ?? null,
                promptVersion: v.prompt_version,
                judgeModel: v.judge_model,
                probability: num(v.probability),
                weight: num(v.weight),
                inputTokens: num(v.input_tokens),
                outputTokens: num(v.output_tokens),
                cost: num(v.cost),
                agentTokens: numOrNull(v.agent_tokens),
                agentToolCalls: numOrNull(v.agent_tool_calls),
            })),
            label: label
                ? {
                    reached_goal: bool(label.reached_goal),
                    unnecessary_calls: num(label.unnecessary_calls),
                    dangerous_calls: num(label.dangerous_calls),
                    labeler: label.labeler,
                    note: label.note,
                }
                : null,
        };
    }
}
//# sourceMappingURL=verdict-store.js.map