/**
 * OTLP/protobuf AnyValue and KeyValue, decoded straight into attribute values (the spans' and the
 * log records' decoders share it): nested values past the depth limit reject their span at once,
 * skipped by length by the caller, with no recursion.
 */
import type { AttrObject, AttrValue } from '../../model.js';
import { SpanRejected, depthReason, newAttrs } from './decode-common.js';
import {
  checkEnd,
  ldEnd,
  readInt64,
  readString,
  readVarint32,
  skipField,
  stringAt,
  type Ctx,
} from './protobuf-wire.js';

/** KeyValue → target[key] = value; `depth` is the nesting level of the value. */
export function decodeKeyValueInto(c: Ctx, end: number, target: AttrObject, depth: number): void {
  const r = c.r;
  // The usual layout — key (field 1) then value (field 2), nothing else, both shorter than 128
  // bytes — is read straight from the bytes; anything else takes the general loop below, which
  // decodes that layout to the same result (the fast path only saves the tag and length calls).
  const b = c.b;
  const p = r.pos;
  if (b[p] === 10) {
    const keyLen = b[p + 1]!;
    const keyEnd = p + 2 + keyLen;
    if (keyLen < 128 && keyEnd + 2 <= end && b[keyEnd] === 18) {
      const valueLen = b[keyEnd + 1]!;
      if (valueLen < 128 && keyEnd + 2 + valueLen === end) {
        const key = stringAt(b, p + 2, keyEnd);
        r.pos = keyEnd + 2;
        target[key] = decodeAnyValue(c, end, depth);
        return;
      }
    }
  }
  let key = '';
  let value: AttrValue = null;
  while (r.pos < end) {
    const tag = readVarint32(r);
    if (tag === 10) key = readString(c);
    else if (tag === 18) value = decodeAnyValue(c, ldEnd(r), depth);
    else skipField(r, tag);
  }
  checkEnd(r, end);
  target[key] = value;
}

export function decodeAnyValue(c: Ctx, end: number, depth: number): AttrValue {
  const r = c.r;
  // Rejects the span at once: the caller skips it by its length, no recursion, no scan.
  if (depth > c.maxDepth) throw new SpanRejected(depthReason(c.maxDepth));
  // A string value that is the whole AnyValue and shorter than 128 bytes: read directly (same
  // result as the loop below).
  const b = c.b;
  const p = r.pos;
  if (b[p] === 10) {
    const len = b[p + 1]!;
    if (len < 128 && p + 2 + len === end) {
      r.pos = end;
      return stringAt(b, p + 2, end);
    }
  }
  let v: AttrValue = null;
  while (r.pos < end) {
    const tag = readVarint32(r);
    switch (tag) {
      case 10:
        v = readString(c);
        break;
      case 16:
        v = r.bool();
        break;
      case 24:
        v = readInt64(r);
        break;
      case 33:
        v = r.double();
        break;
      case 42: {
        // array_value: ArrayValue { repeated AnyValue values = 1 }
        const e = ldEnd(r);
        const arr: AttrValue[] = [];
        while (r.pos < e) {
          const t = readVarint32(r);
          if (t === 10) arr.push(decodeAnyValue(c, ldEnd(r), depth + 1));
          else skipField(r, t);
        }
        checkEnd(r, e);
        v = arr;
        break;
      }
      case 50: {
        // kvlist_value: KeyValueList { repeated KeyValue values = 1 }
        const e = ldEnd(r);
        const obj = newAttrs();
        while (r.pos < e) {
          const t = readVarint32(r);
          if (t === 10) decodeKeyValueInto(c, ldEnd(r), obj, depth + 1);
          else skipField(r, t);
        }
        checkEnd(r, e);
        v = obj;
        break;
      }
      case 58: {
        // bytes_value: copied so it does not pin the request body
        const e = ldEnd(r);
        v = new Uint8Array(c.b.subarray(r.pos, e));
        r.pos = e;
        break;
      }
      default:
        skipField(r, tag);
    }
  }
  checkEnd(r, end);
  return v;
}
