/**
 * Signatures already computed, so a re-sighting of a failure costs a map lookup instead of a schema
 * walk, a canonical string and a SHA-256. A SchemaMismatch signature depends on the errors' keyword,
 * instance path and missing property and on the schema they were checked against, so it is kept per
 * schema object (tool definitions are parsed once per distinct definitions text, so a busy tool's
 * schema is one object); the others depend on their fields alone. Bounded: a map that grows past
 * `max` starts over. The result is signatureOf's, always (test/problems/signature-cache.test.ts).
 */
import { signatureOf, type Signature, type SignatureInput } from './signature.js';

export class SignatureCache {
  private readonly bySchema = new WeakMap<object, Map<string, Signature>>();
  private readonly others = new Map<string, Signature>();

  constructor(private readonly max = 10_000) {}

  of(input: SignatureInput): Signature {
    let map: Map<string, Signature>;
    let key: string;
    switch (input.kind) {
      case 'SchemaMismatch': {
        const schema = input.schema;
        if (schema !== null && typeof schema === 'object') {
          let m = this.bySchema.get(schema);
          if (!m) this.bySchema.set(schema, (m = new Map()));
          map = m;
          key = '';
        } else {
          // No schema, or one that is not an object (`true`): walked differently, so keyed apart.
          map = this.others;
          key = `s\u0000${schema === undefined ? '' : JSON.stringify(schema)}\u0000`;
        }
        key += `${input.service}\u0000${input.tool}`;
        for (const e of input.errors)
          key += `\u0000${e.keyword}\u0001${e.instancePath}\u0001${String(e.params.missingProperty ?? '')}`;
        break;
      }
      case 'UnknownName':
        map = this.others;
        key = `u\u0000${input.service}\u0000${input.name}`;
        break;
      case 'InvalidJson':
        map = this.others;
        key = `j\u0000${input.service}\u0000${input.tool}\u0000${input.cause}`;
        break;
      case 'execution':
        map = this.others;
        key = `e\u0000${input.service}\u0000${input.tool}\u0000${input.status}\u0000${input.httpStatus ?? ''}\u0000${input.errorType ?? ''}`;
        break;
    }
    const hit = map.get(key);
    if (hit) return hit;
    const s = signatureOf(input);
    if (map.size >= this.max) map.clear();
    map.set(key, s);
    return s;
  }
}
