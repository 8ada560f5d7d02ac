/**
 * A section's raw value to set keys on: itself when it is a mapping, a fresh one when it is absent,
 * undefined when it is something else (left as it is, for the schema to report).
 */
export function rawMapping(raw) {
    if (raw === undefined || raw === null)
        return {};
    return typeof raw === 'object' && !Array.isArray(raw) ? raw : undefined;
}
//# sourceMappingURL=config-section.js.map