export const logKind = {
    needsUrl: false,
    schema: { type: 'object', additionalProperties: false, properties: {} },
    check: (s) => (s.url ? ['takes no url'] : []),
    create(s, deps) {
        return {
            name: s.name,
            kind: 'log',
            target: 'log',
            async send(m) {
                const line = {
                    alert: m.rule,
                    status: m.status,
                    repeat: m.repeat,
                    labels: m.labels,
                    value: m.value,
                    threshold: m.threshold,
                    severity: m.severity,
                    link: m.link,
                };
                if (m.status === 'firing')
                    deps.log.warn(line, `alert ${m.rule} firing: ${m.summary}`);
                else
                    deps.log.info(line, `alert ${m.rule} resolved: ${m.summary}`);
                return { kind: 'ok' };
            },
        };
    },
};
//# sourceMappingURL=log.js.map