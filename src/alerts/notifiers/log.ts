/** The default notifier: one structured log line per message (nothing to configure, nothing to leak). */
import type { NotifierKind } from './registry.js';

export const logKind: NotifierKind = {
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
          ...(m.attribution ? { attribution: m.attribution.text } : {}),
        };
        if (m.status === 'firing') deps.log.warn(line, `alert ${m.rule} firing: ${m.summary}`);
        else deps.log.info(line, `alert ${m.rule} resolved: ${m.summary}`);
        return { kind: 'ok' };
      },
    };
  },
};
