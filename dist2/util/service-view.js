/**
 * What one reader may see: every service, or the services its token's globs match
 * (auth.tokens[].services). Every query in src/queries/ takes a Reader (queries/reader.ts), which carries a
 * view, and applies it — in the store's WHERE clause where rows are read, in memory where an answer
 * is assembled — so an endpoint that reads through src/queries/ is filtered by construction.
 *
 * What is not per service (judge runs, calibration, outbox totals, the OTLP span count, Langfuse's
 * counts) is an aggregate over every team: a restricted reader gets null or an empty list for it.
 * Configuration is shown unless it names a service the reader may not see.
 */
import { globsRegExp } from './glob.js';
export const EVERY_SERVICE = Object.freeze({ globs: undefined, sees: () => true });
export function servicesView(globs) {
    const re = globsRegExp(globs);
    return Object.freeze({ globs: Object.freeze([...globs]), sees: (service) => re.test(service) });
}
export const isRestricted = (v) => v.globs !== undefined;
/** The store's filter for this view (FailureQuery / CallCountQuery `services`). */
export function storeFilter(v) {
    return v.globs ? { services: v.globs } : {};
}
//# sourceMappingURL=service-view.js.map