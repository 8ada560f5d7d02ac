import { exportedCases } from '../queries/export-cases.js';
import { RedactionError, toJsonl } from '../replay/export.js';
import { parseExportFilters } from '../replay/filters.js';
const text = { type: 'string', maxLength: 1000 };
export async function exportRoutes(app, opts) {
    app.get('/api/export/cases', {
        schema: {
            querystring: {
                type: 'object',
                additionalProperties: false,
                properties: {
                    since: text,
                    service: text,
                    outcome: text,
                    feedback: text,
                    judge: text,
                    trace_id: text,
                    limit: text,
                    format: { enum: ['jsonl', 'json'], default: 'jsonl' },
                },
            },
        },
    }, async (req, reply) => {
        const { format, ...raw } = req.query;
        const parsed = parseExportFilters(raw, opts.now(), { limit: 100, maxLimit: 1000 });
        if (!parsed.ok)
            return reply
                .code(400)
                .send({ error: 'Bad Request', message: parsed.problems.join('; '), problems: parsed.problems });
        const r = opts.read(req);
        const { judge, feedback } = r;
        if (!judge || !feedback)
            return reply
                .code(503)
                .send({ error: 'Service Unavailable', message: 'the export is not available with this store' });
        let res;
        try {
            res = await exportedCases({ ...r, judge, feedback }, parsed.value);
        }
        catch (err) {
            if (!(err instanceof RedactionError))
                throw err;
            req.log.error({ err }, 'export: redaction failed; nothing exported');
            return reply.code(500).send({ error: 'Internal Server Error', message: 'redaction failed; nothing exported' });
        }
        if (format === 'json')
            return { cases: res.cases, summary: res.summary };
        const day = new Date(opts.now()).toISOString().slice(0, 10);
        return reply
            .header('content-type', 'application/x-ndjson; charset=utf-8')
            .header('content-disposition', `attachment; filename="toolwatch-cases-${day}.jsonl"`)
            .header('x-toolwatch-export', JSON.stringify({
            cases: res.summary.cases,
            duplicates: res.summary.duplicates,
            skipped: res.summary.skipped.length,
            truncated: res.summary.truncated,
        }))
            .send(toJsonl(res.cases));
    });
}
//# sourceMappingURL=export.js.map