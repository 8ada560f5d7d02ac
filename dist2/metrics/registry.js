/**
 * Every metric toolwatch exports: names, labels and help text in one place. Metric names are part
 * of the contract — users write PromQL and alert rules against them.
 */
import client from 'prom-client';
import { BoundHistogram } from './bound-histogram.js';
/** The `reason` label values of toolwatch_ingest_rejected_total (README, Metrics). */
export const INGEST_REJECT_REASONS = [
    'unsupported_media_type',
    'unsupported_encoding',
    'too_large',
    'bad_gzip',
    'body_timeout',
    'malformed',
    'unstorable',
    'unprocessable',
    'unavailable',
    'overloaded',
    'client_gone',
    'unreadable_span',
    'forbidden_service',
    'unreadable_log_record',
];
/** The `kind` label of toolwatch_log_records_received_total. */
export const LOG_RECORD_KINDS = ['genai_event', 'genai_without_span', 'other'];
export function createMetrics(probes = {}) {
    const registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry });
    // Gauges named *_total break the exposition-format conventions (promtool check metrics flags them).
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
        registry.removeSingleMetric(name);
    const r = [registry];
    return {
        registry,
        toolCalls: new client.Counter({
            name: 'toolwatch_tool_calls_total',
            help: 'Tool calls counted once each, by structural outcome: valid, InvalidJson, UnknownName, SchemaMismatch, unvalidated. Invented names are tool="_unknown".',
            labelNames: ['service', 'model', 'tool', 'outcome', 'source'],
            registers: r,
        }),
        unvalidated: new client.Counter({
            name: 'toolwatch_unvalidated_calls_total',
            help: 'Calls that could not be checked, by reason: no_arguments, no_schema, bad_schema, no_name.',
            labelNames: ['service', 'reason'],
            registers: r,
        }),
        invalidJson: new client.Counter({
            name: 'toolwatch_invalid_json_total',
            help: 'InvalidJson calls by cause: truncated, concatenated, python_literal, trailing_text, not_object, empty, other. ' +
                'Each is also counted in toolwatch_tool_calls_total.',
            labelNames: ['service', 'reason'],
            registers: r,
        }),
        definitionChanges: new client.Counter({
            name: 'toolwatch_tool_definition_changes_total',
            help: "Tool definition changes (a tool's definition offered in a new version) per service, counted once across " +
                'replicas: read from the store at scrape time, so every replica reports the same value (aggregate with max).',
            labelNames: ['service'],
            registers: r,
            async collect() {
                if (!probes.definitionChanges)
                    return;
                // A store that cannot answer keeps the last values rather than failing the scrape.
                const counts = await probes.definitionChanges().catch(() => undefined);
                if (!counts)
                    return;
                this.reset();
                for (const [service, n] of Object.entries(counts))
                    this.inc({ service }, n);
            },
        }),
        problems: new client.Gauge({
            name: 'toolwatch_problems',
            help: 'Problems (failed calls grouped by signature) by status: open, resolved, regressed, muted. Set by the lifecycle job.',
            labelNames: ['status'],
            registers: r,
        }),
        toolExecutions: new client.Counter({
            name: 'toolwatch_tool_executions_total',
            help: 'Tool executions seen in tool spans, by status: ok, client_error (4xx: the call was wrong), server_error ' +
                '(5xx, timeouts: the tool was down), error (failed, nobody said how); and by call_outcome, the structural ' +
                'outcome of the executed call (valid, InvalidJson, UnknownName, SchemaMismatch, unvalidated, unknown).',
            labelNames: ['service', 'tool', 'status', 'call_outcome'],
            registers: r,
        }),
        toolExecutionDuration: new BoundHistogram({
            name: 'toolwatch_tool_execution_duration_seconds',
            help: 'How long tool executions took (tool span start to end), every status.',
            labelNames: ['service', 'tool'],
            buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
            registers: r,
        }),
        trajectoryToolCalls: new BoundHistogram({
            name: 'toolwatch_trajectory_tool_calls',
            help: 'Tool calls per trajectory (a trace with tool calls, observed once it went idle).',
            labelNames: ['service'],
            buckets: [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 50, 100],
            registers: r,
        }),
        trajectorySteps: new BoundHistogram({
            name: 'toolwatch_trajectory_steps',
            help: 'Model steps (model requests) per trajectory.',
            labelNames: ['service'],
            buckets: [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 50, 100],
            registers: r,
        }),
        trajectoryTokens: new BoundHistogram({
            name: 'toolwatch_trajectory_tokens',
            help: 'Model tokens (input + output) per trajectory, for trajectories whose model spans reported tokens.',
            labelNames: ['service'],
            buckets: [500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000],
            registers: r,
        }),
        trajectoryFailedCalls: new BoundHistogram({
            name: 'toolwatch_trajectory_failed_calls',
            help: 'Calls per trajectory that failed their structural check or their execution (each call once).',
            labelNames: ['service'],
            buckets: [0, 1, 2, 3, 5, 10, 20],
            registers: r,
        }),
        trajectoryDuration: new BoundHistogram({
            name: 'toolwatch_trajectory_duration_seconds',
            help: 'Wall time per trajectory: first span start to last span end.',
            labelNames: ['service'],
            buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800],
            registers: r,
        }),
        trajectoriesInFlight: new client.Gauge({
            name: 'toolwatch_trajectories_in_flight',
            help: 'Traces whose trajectory is being followed in memory (not yet idle).',
            registers: r,
            collect() {
                if (probes.trajectories)
                    this.set(probes.trajectories());
            },
        }),
        spansReceived: new client.Counter({
            name: 'toolwatch_spans_received_total',
            help: 'Spans received, whether or not they carry tool calls.',
            labelNames: ['source'],
            registers: r,
        }),
        spansUnrecognized: new client.Counter({
            name: 'toolwatch_spans_unrecognized_total',
            help: 'LLM-looking spans (gen_ai.*, llm.*, ai.*, openinference.*, langfuse.* … attributes or GenAI events) ' +
                'no dialect reader recognised, by instrumentation scope name. Their keys: GET /api/instrumentation.',
            labelNames: ['scope'],
            registers: r,
        }),
        logRecordsReceived: new client.Counter({
            name: 'toolwatch_log_records_received_total',
            help: 'OTLP log records received on /v1/logs, by kind: GenAI events read with their span, GenAI events ' +
                'without a trace and span id (not joinable, dropped), other records (counted and dropped).',
            labelNames: ['kind'],
            registers: r,
        }),
        ingestRejected: new client.Counter({
            name: 'toolwatch_ingest_rejected_total',
            help: 'Requests or spans refused by the receiver, by reason.',
            labelNames: ['reason'],
            registers: r,
        }),
        ingestShed: new client.Counter({
            name: 'toolwatch_ingest_shed_total',
            help: 'Batches refused with 503 by load shedding, by why: inflight, token_share, event_loop_delay, queueing_delay.',
            labelNames: ['reason'],
            registers: r,
        }),
        redactionFailures: new client.Counter({
            name: 'toolwatch_redaction_failures_total',
            help: "Values store.redact_arguments could not redact, so they were not stored (the reason kept instead), by what: arguments, message (failure records), context (a failure record's user message), trajectory (a sampled step), comment (a feedback comment).",
            labelNames: ['what'],
            registers: r,
        }),
        authDenied: new client.Counter({
            name: 'toolwatch_auth_denied_total',
            help: 'Requests refused by token authentication, by the scope the endpoint needs and reason: missing_token, invalid_token (401), missing_scope (403).',
            labelNames: ['scope', 'reason'],
            registers: r,
        }),
        reloads: new client.Counter({
            name: 'toolwatch_reloads_total',
            help: 'Reloads on SIGHUP, by what (tokens, tls) and status (ok, failed: the previous one stays in use).',
            labelNames: ['what', 'status'],
            registers: r,
        }),
        duplicateSpans: new client.Counter({
            name: 'toolwatch_duplicate_spans_total',
            help: 'Tool-bearing spans received again (client retries) and not counted twice.',
            registers: r,
        }),
        ingestDuration: new client.Histogram({
            name: 'toolwatch_ingest_batch_duration_seconds',
            help: 'Time from a decoded batch to its durable commit.',
            labelNames: ['source'],
            buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
            registers: r,
        }),
        failureRecordsDropped: new client.Counter({
            name: 'toolwatch_failure_records_dropped_total',
            help: 'Failed calls counted but not stored as records because their tool hit the per-minute cap.',
            registers: r,
        }),
        labelOverflow: new client.Counter({
            name: 'toolwatch_label_overflow_total',
            help: 'Label values replaced by "_other" because the label reached its cap.',
            labelNames: ['label'],
            registers: r,
        }),
        dedupeTraces: new client.Gauge({
            name: 'toolwatch_dedupe_traces',
            help: 'Traces remembered for one-call-one-count across batches.',
            registers: r,
            collect() {
                if (probes.dedupeTraces)
                    this.set(probes.dedupeTraces());
            },
        }),
        dedupeMemoryBytes: new client.Gauge({
            name: 'toolwatch_dedupe_memory_bytes',
            help: "Bytes of the dedupe memory's typed arrays (its traces, spans and calls; grows up to dedupe.max_traces).",
            registers: r,
            collect() {
                if (probes.dedupeBytes)
                    this.set(probes.dedupeBytes());
            },
        }),
        dedupeEvicted: new client.Counter({
            name: 'toolwatch_dedupe_evicted_total',
            help: 'Traces forgotten by the dedupe memory (capacity or TTL).',
            registers: r,
        }),
        judgeVerdicts: new client.Counter({
            name: 'toolwatch_judge_verdicts_total',
            help: 'Trajectories the LLM judge gave a valid verdict, by service and reached_goal (true | false). Unweighted: see /api/judge for sampling-weighted rates.',
            labelNames: ['service', 'reached_goal'],
            registers: r,
        }),
        judgeUnnecessaryCalls: new client.Counter({
            name: 'toolwatch_judge_unnecessary_calls_total',
            help: 'Tool calls the LLM judge found unnecessary, summed over judged trajectories.',
            labelNames: ['service'],
            registers: r,
        }),
        judgeDangerousCalls: new client.Counter({
            name: 'toolwatch_judge_dangerous_calls_total',
            help: 'Tool calls the LLM judge found dangerous (side effects that should not have happened).',
            labelNames: ['service'],
            registers: r,
        }),
        judgeKappa: new client.Gauge({
            name: 'toolwatch_judge_kappa',
            help: "Cohen's kappa between the judge and human labels, by field (reached_goal, unnecessary_calls, dangerous_calls); absent until defined.",
            labelNames: ['field'],
            registers: r,
        }),
        judgeRuns: new client.Counter({
            name: 'toolwatch_judge_runs_total',
            help: 'Judge runs by status: ok, partial (caps or errors left items pending), failed, skipped (another run or replica held the lock).',
            labelNames: ['status'],
            registers: r,
        }),
        judgeErrors: new client.Counter({
            name: 'toolwatch_judge_errors_total',
            help: 'Trajectories the judge could not judge, by reason: invalid_verdict (recorded), rate_limited, server, timeout, connection, rejected, redaction (left pending).',
            labelNames: ['reason'],
            registers: r,
        }),
        judgeTokens: new client.Counter({
            name: 'toolwatch_judge_tokens_total',
            help: 'Tokens used by the LLM judge, by type (input | output), as the server reported them.',
            labelNames: ['type'],
            registers: r,
        }),
        judgeCost: new client.Counter({
            name: 'toolwatch_judge_cost_total',
            help: 'Estimated judge cost from judge.price_per_million_*_tokens (in the currency of those prices).',
            registers: r,
        }),
        storePending: new client.Gauge({
            name: 'toolwatch_store_pending_batches',
            help: 'Batches waiting for a store commit.',
            registers: r,
            collect() {
                if (probes.pendingBatches)
                    this.set(probes.pendingBatches());
            },
        }),
        alertsFiring: new client.Gauge({
            name: 'toolwatch_alerts_firing',
            help: 'Alert instances (rule x group) firing at the last evaluation, per rule; set by the replica that evaluates.',
            labelNames: ['rule'],
            registers: r,
        }),
        notifications: new client.Counter({
            name: 'toolwatch_notifications_total',
            help: 'Alert notification attempts by notifier and status: sent, retried (temporary failure, will retry), failed (permanent or given up).',
            labelNames: ['notifier', 'status'],
            registers: r,
        }),
        langfuseObservations: new client.Counter({
            name: 'toolwatch_langfuse_observations_total',
            help: 'Langfuse observations taken into the pipeline (each once), by observation type.',
            labelNames: ['type'],
            registers: r,
        }),
        langfuseDuplicates: new client.Counter({
            name: 'toolwatch_langfuse_duplicate_observations_total',
            help: 'Langfuse observations read again (window overlap, re-read pages) and skipped.',
            registers: r,
        }),
        langfuseRequests: new client.Counter({
            name: 'toolwatch_langfuse_requests_total',
            help: 'Requests to the Langfuse public API, by endpoint (v2_observations, v1_observations, scores, v3_scores_read, v2_scores_read) and status (HTTP code, timeout, network).',
            labelNames: ['endpoint', 'status'],
            registers: r,
        }),
        langfuseScores: new client.Counter({
            name: 'toolwatch_langfuse_scores_total',
            help: 'Scores written back to Langfuse, by status: sent, retry (will be sent again), rejected (refused by Langfuse), dropped (gave up).',
            labelNames: ['status'],
            registers: r,
        }),
        feedback: new client.Counter({
            name: 'toolwatch_feedback_total',
            help: 'User feedback stored per trace (POST /api/feedback, span attributes, Langfuse scores), by value: negative (< 0), neutral (0), positive (> 0). A resend of the same value is not counted again.',
            labelNames: ['service', 'value'],
            registers: r,
        }),
        feedbackIgnored: new client.Counter({
            name: 'toolwatch_feedback_ignored_total',
            help: 'Feedback found in spans or Langfuse scores that could not be read, by source (span, langfuse) and reason (bad_value, no_trace, forbidden).',
            labelNames: ['source', 'reason'],
            registers: r,
        }),
        sourceLag: new client.Gauge({
            name: 'toolwatch_source_lag_seconds',
            help: 'How far a pulled source is behind: now minus its persisted watermark.',
            labelNames: ['source'],
            registers: r,
            collect() {
                if (!probes.sourceLag)
                    return;
                for (const [source, lag] of Object.entries(probes.sourceLag()))
                    this.set({ source }, lag);
            },
        }),
    };
}
//# sourceMappingURL=registry.js.map