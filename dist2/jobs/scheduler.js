/**
 * Periodic jobs on node-cron. A run never overlaps the previous one of the same job: a tick that
 * finds the last run still going is skipped and logged, not queued.
 */
import cron from 'node-cron';
export class Scheduler {
    log;
    tasks = [];
    timers = [];
    running = new Set();
    /** The runs going on now, so a shutdown can wait for them before the store closes. */
    runs = new Set();
    constructor(log) {
        this.log = log;
    }
    every(name, expression, run) {
        if (!cron.validate(expression))
            throw new Error(`job ${name}: invalid cron expression ${JSON.stringify(expression)}`);
        const task = cron.schedule(expression, () => void this.runOnce(name, run), { name });
        this.tasks.push(task);
    }
    /** Sub-minute jobs (cron's finest grain is too coarse for them). */
    interval(name, everyMs, run) {
        const t = setInterval(() => void this.runOnce(name, run), everyMs);
        t.unref();
        this.timers.push(t);
    }
    /** Runs a job now unless it is already running; resolves false when skipped. */
    async runOnce(name, run) {
        if (this.running.has(name)) {
            this.log.warn({ job: name }, 'previous run still going; this tick is skipped');
            return false;
        }
        this.running.add(name);
        let going;
        try {
            going = run();
        }
        catch (err) {
            going = Promise.reject(err);
        }
        this.runs.add(going);
        try {
            await going;
        }
        catch (err) {
            this.log.error({ err, job: name }, 'job failed');
        }
        finally {
            this.running.delete(name);
            this.runs.delete(going);
        }
        return true;
    }
    /** Resolves once every run going on now has ended (after stop(), and after their requests were aborted). */
    async settled() {
        await Promise.allSettled([...this.runs]);
    }
    stop() {
        for (const t of this.tasks)
            void t.stop();
        for (const t of this.timers)
            clearInterval(t);
        this.tasks.length = 0;
        this.timers.length = 0;
    }
}
//# sourceMappingURL=scheduler.js.map