/** The batch was skipped before anything was recorded: its client had gone. */
export class BatchCancelled extends Error {
    constructor() {
        super('the client went away before the batch was recorded');
        this.name = 'BatchCancelled';
    }
}
/**
 * The batch failed before it reached the store, in toolwatch's own processing: the same batch would
 * fail the same way on every resend, so it must not be answered as retryable (503), and the store's
 * health is not in question.
 */
export class BatchUnprocessable extends Error {
    constructor(cause) {
        super(`the batch could not be processed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
        this.name = 'BatchUnprocessable';
    }
}
/** Runs `read`, turning what it throws into BatchUnprocessable (a resend would throw it again). */
export function unprocessableOnThrow(read) {
    try {
        return read();
    }
    catch (err) {
        throw new BatchUnprocessable(err);
    }
}
//# sourceMappingURL=ports.js.map