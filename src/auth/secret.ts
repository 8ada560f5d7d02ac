/**
 * A value that must never be printed: JSON, util.inspect (console.log, pino) and string conversion
 * all show `[secret]`. The frozen config holds env-sourced tokens this way, so printing the config
 * cannot leak them; only `reveal()` gives the value.
 */
import { inspect } from 'node:util';

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return '[secret]';
  }

  toString(): string {
    return '[secret]';
  }

  [inspect.custom](): string {
    return '[secret]';
  }
}
