/**
 * A Reader is the read side of toolwatch as one requester may see it: the data sources together with
 * that requester's service view (util/service-view.ts). The API routes and the page get a Reader per request and
 * never the store itself, and every query here takes one, so whatever they show is filtered by the
 * token's services without the route having to remember it. How a request becomes a Reader is the
 * API's business (api/reader-for.ts): nothing here knows Fastify or the auth hook.
 */
import type { Alerting } from '../alerts/setup.js';
import type { FeedbackStore } from '../feedback/store.js';
import type { Judge } from '../judge/service.js';
import type { Metrics } from '../metrics/registry.js';
import type { Store } from '../store/store.js';
import type { CoverageSource } from './instrumentation.js';
import type { ServiceView } from '../util/service-view.js';

export interface ReadSources {
  store: Store;
  now: () => number;
  metrics: Metrics;
  /** Undefined when the store keeps no alert state. */
  alerting: Alerting | undefined;
  /** Undefined when the store keeps no judge state. */
  judge: Judge | undefined;
  /** User feedback per trace (the export reads it); undefined when the store keeps none. */
  feedback: FeedbackStore | undefined;
  /** The instrumentation-coverage report of this process. */
  coverage: CoverageSource;
  /** The Langfuse source's state; undefined unless it is enabled. */
  langfuse?: () => Promise<object>;
}

export interface Reader extends ReadSources {
  readonly view: ServiceView;
}
