/**
 * The Reader of one request: the read sources with the service view of the request's principal
 * (set by the auth hook). It lives at the edge, next to the routes that call it, so src/queries/
 * stays free of Fastify and of the hook.
 */
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../auth/hook.js';
import type { Reader, ReadSources } from '../queries/reader.js';

/** How a route gets the Reader of a request (built in app.ts from the request's principal). */
export type ReaderFor = (req: FastifyRequest) => Reader;

export function readerFor(sources: ReadSources): ReaderFor {
  return (req) => ({ ...sources, view: principalOf(req).view });
}
