export class Lifecycle {
    scheduler;
    started = [];
    constructor(scheduler) {
        this.scheduler = scheduler;
    }
    /** Starts the component; it is stopped with the others only once its start succeeded. */
    async start(component) {
        await component.start?.(this.scheduler);
        this.started.push(component);
        return component;
    }
    /** Stops every started component (each once): scheduler, interrupts, the runs awaited, then stops in reverse. */
    async stop() {
        const started = this.started.splice(0).reverse();
        this.scheduler.stop();
        for (const c of started)
            c.interrupt?.();
        await this.scheduler.settled();
        for (const c of started)
            await c.stop?.();
    }
}
//# sourceMappingURL=lifecycle.js.map