import { describe, expect, it } from 'vitest';
import { BodyBytes } from '../../../src/sources/otlp/body.js';

describe('BodyBytes', () => {
  it('hands the body out once and keeps no reference to it', () => {
    const bytes = Buffer.from('a batch');
    const body = new BodyBytes(bytes);
    expect(body.take()).toBe(bytes);
    // A second take would mean something still reads the body after it was decoded.
    expect(() => body.take()).toThrow(/taken already/);
    expect(Object.values(body)).not.toContain(bytes);
  });
});
