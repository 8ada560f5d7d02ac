/**
 * A value that must never be printed: JSON, util.inspect (console.log, pino) and string conversion
 * all show `[secret]`. The frozen config holds env-sourced tokens this way, so printing the config
 * cannot leak them; only `reveal()` gives the value.
 */
import { inspect } from 'node:util';
export class Secret {
    #value;
    constructor(value) {
        this.#value = value;
    }
    reveal() {
        return this.#value;
    }
    toJSON() {
        return '[secret]';
    }
    toString() {
        return '[secret]';
    }
    [inspect.custom]() {
        return '[secret]';
    }
}
//# sourceMappingURL=secret.js.map