import { createRedactor } from '../redact/redact.js';
import { exportCases } from '../replay/export.js';
export function exportedCases(r, filters) {
    const redact = r.judge.config.redact;
    return exportCases({
        sql: r.store.sql,
        judge: r.judge.store,
        feedback: r.feedback,
        redactor: () => createRedactor(redact),
        view: r.view,
    }, filters);
}
//# sourceMappingURL=export-cases.js.map