/**
 * Progress of `eval run` on stderr: a redrawn bar on a terminal, one plain line per result
 * otherwise (CI logs stay readable and greppable).
 */
import type { ResultRecord } from './records.js';

export interface ProgressSink {
  write: (s: string) => void;
  isTTY: boolean;
}

const WIDTH = 30;

function describe(r: ResultRecord): string {
  const o = r.outcome;
  if (r.status !== 'ok') return `provider_error ${r.error?.code ?? ''}`.trim();
  if (o.kind === 'tool_calls') return `tool_calls ${o.calls.map((c) => c.name).join(',')}`;
  return o.kind;
}

export function createProgress(sink: ProgressSink) {
  let errors = 0;
  let drawn = false;
  return {
    update(r: ResultRecord, done: number, total: number): void {
      if (r.status !== 'ok') errors++;
      if (!sink.isTTY) {
        sink.write(
          `[${done}/${total}] ${r.label}${r.variant === 'core' ? '' : ` [${r.variant}]`} ${r.caseId} #${r.repeat} ${describe(r)} ${r.latencyMs}ms\n`,
        );
        return;
      }
      const filled = Math.round((done / total) * WIDTH);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}`;
      sink.write(`\r${bar} ${done}/${total}  provider errors: ${errors}  ${r.label.slice(0, 40)}\u001b[K`);
      drawn = true;
    },
    finish(): void {
      if (drawn) sink.write('\n');
    },
  };
}
