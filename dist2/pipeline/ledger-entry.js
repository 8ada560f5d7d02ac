import { NONE } from './dedupe-tables.js';
/** A call entry with every field present from the start (one shape for all keeps V8's in-object layout). */
export function callEntry(name, argsRaw, hasId, executed, fromExecution, summary) {
    return {
        name,
        argsRaw,
        hasId,
        executed,
        fromExecution,
        pending: undefined,
        summary,
        outcome: undefined,
        model: undefined,
        at: NONE,
        atHi: 0,
        atLo: 0,
        pair: undefined,
    };
}
// A call's state in 32 bits: flags, then 1 + its outcome's index (0: not counted yet), then its model label's index.
export const HAS_ID = 1;
export const EXECUTED = 2;
export const FROM_EXECUTION = 4;
export const SUMMARY = 8;
export const OUTCOME_SHIFT = 4;
export const OUTCOME_MASK = 7;
export const MODEL_SHIFT = 7;
export const flagsOf = (e) => (e.hasId ? HAS_ID : 0) |
    (e.executed ? EXECUTED : 0) |
    (e.fromExecution ? FROM_EXECUTION : 0) |
    (e.summary ? SUMMARY : 0);
//# sourceMappingURL=ledger-entry.js.map