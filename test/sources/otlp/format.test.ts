/** The Content-Type an OTLP batch is read by (intake.ts formatOf): the exact types and their spelled-out variants. */
import { describe, expect, it } from 'vitest';
import { formatOf } from '../../../src/sources/otlp/intake.js';

describe('formatOf', () => {
  it.each([
    ['application/x-protobuf', 'protobuf'],
    ['application/protobuf', 'protobuf'],
    ['application/json', 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['Application/X-Protobuf', 'protobuf'],
    [' application/x-protobuf ;q=1', 'protobuf'],
    ['APPLICATION/JSON', 'json'],
    ['text/plain', undefined],
    ['application/x-protobuf-foo', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %s', (type, format) => {
    expect(formatOf(type)).toBe(format);
  });
});
