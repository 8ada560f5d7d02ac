/**
 * A Reader is the read side of toolwatch as one requester may see it: the data sources together with
 * that requester's service view (view.ts). The API routes and the page get a Reader per request and
 * never the store itself, and every query here takes one, so whatever they show is filtered by the
 * token's services without the route having to remember it.
 */
import type { FastifyRequest } from 'fastify';
import type { Alerting } from '../alerts/setup.js';
import { principalOf } from '../auth/hook.js';
import type { FeedbackStore } from '../feedback/store.js';
import type { Judge } from '../judge/service.js';
import type { Metrics } from '../metrics/registry.js';
import type { Store } from '../store/store.js';
import type { CoverageSource } from './instrumentation.js';
import type { ServiceView } from './view.js';

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

/** How a route gets the Reader of a request (built in app.ts from the request's principal). */
export type ReaderFor = (req: FastifyRequest) => Reader;

export function readerFor(sources: ReadSources): ReaderFor {
  return (req) => ({ ...sources, view: principalOf(req).view });
}
