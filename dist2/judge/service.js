import { calibrate, KAPPA_FIELDS } from './calibration.js';
import { OpenAIJudgeClient } from './client.js';
import { JudgeJob } from './job.js';
import { loadPrompt } from './prompt-file.js';
import { createRedactor } from '../redact/redact.js';
import { JudgeStore } from './store.js';
import { TrajectorySink } from './trajectory.js';
export function policyOf(cfg) {
    return {
        sampleRate: cfg.sampleRate,
        serviceRates: cfg.serviceRates,
        ...(cfg.failedRate !== undefined ? { failedRate: cfg.failedRate } : {}),
        ...(cfg.feedbackRate > 0 ? { feedbackRate: cfg.feedbackRate } : {}),
    };
}
export function metricsPort(metrics, labels) {
    return {
        verdict(service, v) {
            const s = labels.value('service', service);
            metrics.judgeVerdicts.inc({ service: s, reached_goal: String(v.reached_goal) });
            metrics.judgeUnnecessaryCalls.inc({ service: s }, v.unnecessary_calls);
            metrics.judgeDangerousCalls.inc({ service: s }, v.dangerous_calls);
        },
        error: (reason) => metrics.judgeErrors.inc({ reason }),
        run: (status) => metrics.judgeRuns.inc({ status }),
        usage(input, output, cost) {
            metrics.judgeTokens.inc({ type: 'input' }, input);
            metrics.judgeTokens.inc({ type: 'output' }, output);
            metrics.judgeCost.inc(cost);
        },
    };
}
/** Builds the judge from a checked config: always its store and calibration; the sampler and job when active. */
export function createJudge(cfg, w, opts = {}) {
    const store = new JudgeStore(w.store.sql);
    const calibration = async () => calibrate(await store.labels.labelPairs(), cfg.minKappa, cfg.minLabels);
    const refreshKappa = async () => {
        const c = await calibration();
        for (const f of c.fields) {
            if (f.kappa === null)
                w.metrics.judgeKappa.remove({ field: f.field });
            else
                w.metrics.judgeKappa.set({ field: f.field }, f.kappa);
        }
        return c;
    };
    const judge = { config: cfg, store, calibration, refreshKappa };
    const active = opts.requireEnabled === false ? Boolean(cfg.model) : cfg.enabled;
    if (!active)
        return judge;
    const policy = policyOf(cfg);
    judge.sink = new TrajectorySink({
        project: cfg.project,
        policy,
        store,
        now: w.now,
        redactor: w.redactor,
        onRedactionFailure: () => w.metrics.redactionFailures.inc({ what: 'trajectory' }),
    });
    const client = w.client ??
        new OpenAIJudgeClient({
            baseUrl: cfg.baseUrl,
            model: cfg.model,
            ...(cfg.apiKey ? { apiKey: cfg.apiKey } : {}),
            timeoutMs: cfg.timeoutMs,
            maxRetries: cfg.maxRetries,
            maxRetryWaitMs: cfg.maxRetryWaitMs,
            ...(w.signal ? { signal: w.signal } : {}),
        });
    const deps = {
        store,
        client,
        prompt: loadPrompt(),
        redactor: () => createRedactor(cfg.redact),
        lock: (name, fn) => w.store.runExclusive(name, fn),
        policy,
        idleMs: cfg.idleMs,
        caps: cfg.caps,
        price: cfg.price,
        concurrency: cfg.concurrency,
        now: w.now,
        metrics: metricsPort(w.metrics, w.labels),
        afterRun: async () => void (await refreshKappa()),
        log: w.log,
        ...(w.onVerdict ? { onVerdict: w.onVerdict } : {}),
        ...(w.tracer ? { tracer: w.tracer } : {}),
        ...(w.negativeFeedback ? { negativeFeedback: w.negativeFeedback } : {}),
    };
    judge.job = new JudgeJob(deps);
    return judge;
}
export { KAPPA_FIELDS };
//# sourceMappingURL=service.js.map