/**
 * JSON with sorted keys: two values JSON Schema calls equal (`uniqueItems`, `enum`, and two schemas
 * sharing one validator) have the same text whatever their key order. undefined for undefined.
 */
export function canonicalJson(value) {
    return JSON.stringify(value, (_k, v) => {
        if (!v || typeof v !== 'object' || Array.isArray(v))
            return v;
        const sorted = Object.create(null);
        for (const k of Object.keys(v).sort())
            sorted[k] = v[k];
        return sorted;
    });
}
//# sourceMappingURL=canonical-json.js.map