/**
 * A deadline for Ajv's validators. A compiled validator cannot be interrupted, and a schema of a
 * kilobyte can make one run for minutes: twenty `allOf: [{$ref: next}, {$ref: next}]` levels
 * evaluate a value 2^20 times (3 s), thirty a thousand times longer. So every generated function
 * and every loop of Ajv's output (code.process) counts down a shared meter; every 1,024 steps the
 * meter looks at the clock and, past the deadline of the call being validated, throws. Validation
 * that ends within 1,024 steps — nearly every call — never reads the clock.
 */
const STEPS_PER_LOOK = 1024;
/** Thrown out of a validator past its deadline (one object: nothing is allocated per stop). */
export class ValidationDeadline extends Error {
    constructor() {
        super('validation did not finish within check.validation_time_per_batch');
        this.name = 'ValidationDeadline';
    }
}
const STOP = new ValidationDeadline();
let deadlineMs = Number.POSITIVE_INFINITY;
export const meter = {
    n: STEPS_PER_LOOK,
    look() {
        if (performance.now() > deadlineMs)
            throw STOP;
        this.n = STEPS_PER_LOOK;
    },
};
const TICK = 'if(--self.opts.meter.n<0)self.opts.meter.look();';
// Ajv 8's function headers and loops, as its code generator writes them.
const FUNCTION_HEAD = /(function validate\d+\(data, \{[^}]*\}=\{\}\)\{)/g;
const LOOP_HEAD = /(for\((?:let i\d+=0; i\d+<len\d+; i\d+\+\+|const key\d+ in [\w.$[\]"]+)\)\{)/g;
/** Ajv's `code.process`: a tick at the top of every function and every loop body. */
export function withTicks(code) {
    return code.replace(FUNCTION_HEAD, `$1${TICK}`).replace(LOOP_HEAD, `$1${TICK}`);
}
/**
 * Runs a validator with a deadline on the monotonic clock (performance.now()); 'deadline' when it
 * was stopped. Synchronous, so one meter serves every validator.
 */
export function validateBy(validate, data, deadline) {
    deadlineMs = deadline;
    meter.n = STEPS_PER_LOOK;
    try {
        return validate(data);
    }
    catch (err) {
        if (err === STOP)
            return 'deadline';
        throw err;
    }
    finally {
        deadlineMs = Number.POSITIVE_INFINITY;
    }
}
//# sourceMappingURL=deadline.js.map