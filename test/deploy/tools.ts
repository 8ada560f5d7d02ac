/** Runs the command-line checkers of the Debian packages the deploy tests rely on. */
import { spawnSync } from 'node:child_process';

const packages: Record<string, string> = { promtool: 'prometheus', amtool: 'prometheus-alertmanager' };

export interface ToolResult {
  status: number | null;
  out: string;
}

/** Fails (not skips) without the tool: an unchecked config is not shipped. */
export function tool(
  bin: 'promtool' | 'amtool',
  args: string[],
  opts: { cwd?: string; input?: string } = {},
): ToolResult {
  const res = spawnSync(bin, args, { cwd: opts.cwd, input: opts.input, encoding: 'utf8', timeout: 60_000 });
  if (res.error)
    throw new Error(`${bin} is needed for this test (apt-get install ${packages[bin]}): ${res.error.message}`);
  return { status: res.status, out: `${res.stdout}${res.stderr}` };
}
