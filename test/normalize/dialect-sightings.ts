/** A compact, comparable line per span that carries calls, executions or definitions. */
import type { SpanFacts, ToolArgs } from '../../src/model.js';

const args = (a: ToolArgs): string => (a.kind === 'none' ? '-' : a.raw);
const id = (callId: string | undefined): string => (callId ? `#${callId}` : '');

export function sighting(spanName: string, f: SpanFacts): string | undefined {
  const parts: string[] = [];
  if (f.proposals.length > 0)
    parts.push(`P[${f.proposals.map((p) => `${p.name}${id(p.callId)}:${args(p.args)}`).join(' ')}]`);
  if (f.execution)
    parts.push(`E[${f.execution.name}${id(f.execution.callId)}:${args(f.execution.args)}:${f.execution.status}]`);
  if (f.summaryCalls) parts.push(`S[${f.summaryCalls.map((p) => `${p.name}${id(p.callId)}`).join(' ')}]`);
  if (f.offered) parts.push(`O[${f.offered.map((d) => d.name + (d.parameters === undefined ? '' : '*')).join(',')}]`);
  if (parts.length === 0) return undefined;
  return `${spanName.slice(0, 40)} (${f.dialect}/${f.role}) ${parts.join(' ')}`;
}
