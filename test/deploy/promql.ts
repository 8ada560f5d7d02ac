/**
 * What the dashboard test needs from PromQL without a full parser: Grafana's variables replaced by
 * values PromQL accepts (promtool then parses the result), and the metric names an expression
 * selects (every identifier that is not a function, keyword, label or duration).
 */

const GRAFANA_VARIABLES: [RegExp, string][] = [
  [/\$__rate_interval|\$\{__rate_interval\}/g, '5m'],
  [/\$__interval|\$\{__interval\}/g, '1m'],
  [/\$__range|\$\{__range\}/g, '1h'],
  [/\$\{?[A-Za-z_]\w*\}?/g, '.*'], // dashboard variables are only used in =~ matchers
];

export function substituteGrafanaVariables(expr: string): string {
  return GRAFANA_VARIABLES.reduce((s, [re, value]) => s.replace(re, value), expr);
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'atan2',
  'inf',
  'nan',
]);

export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""') // string literals
    .replace(/\{[^}]*\}/g, '{}') // label matchers
    .replace(/\[[^\]]*\]/g, '') // ranges and subqueries
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ''); // label lists
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w.:])[A-Za-z_:][\w:]*/g)) {
    const rest = bare.slice(m.index! + m[0].length);
    if (/^\s*\(/.test(rest) || KEYWORDS.has(m[0].toLowerCase())) continue; // a function or aggregation; a keyword
    names.add(m[0]);
  }
  return [...names].sort();
}

/** Series names a /metrics exposition makes available: from its `# TYPE` lines, with histogram and summary suffixes. */
export function exposedSeriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const m of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}
