/**
 * The decode-only baseline receiver: Fastify on 127.0.0.1, POST /v1/traces reads the body the way
 * toolwatch does (its own readBody, same limit) and decodes it with toolwatch's own decodeProtobuf,
 * then answers 200 with an empty ExportTraceServiceResponse. Nothing else: no normalize, no
 * checks, no store, no metrics. The benchmark's ratio is toolwatch / this.
 *
 * Usage: node bench/baseline.js [port]   (0 or none = any free port)
 * Prints one line `{"ready":true,"port":N}` on stdout once listening; exits on SIGTERM/SIGINT.
 */
import Fastify from 'fastify';
import { readBody } from '../dist/sources/otlp/body.js';
import { decodeProtobuf } from '../dist/sources/otlp/decode.js';

const MAX_BODY = 8 * 1024 * 1024; // toolwatch's default ingest.max_body_bytes
const EMPTY = Buffer.alloc(0); // ExportTraceServiceResponse without partial_success

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_req, _payload, done) => done(null));

let spans = 0;
app.post('/v1/traces', async (request, reply) => {
  const body = await readBody(request.raw, MAX_BODY);
  if (!body.ok) return reply.code(body.status).send(body.message);
  const decoded = decodeProtobuf(body.body.take(), { maxDepth: 32 });
  if (!decoded.ok) return reply.code(400).send(decoded.message);
  spans += decoded.spans.length;
  return reply.code(200).type('application/x-protobuf').send(EMPTY);
});
app.get('/stats', async () => ({ spans }));

const port = Number(process.argv[2] ?? 0);
await app.listen({ host: '127.0.0.1', port });
process.stdout.write(JSON.stringify({ ready: true, port: app.server.address().port }) + '\n');

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
