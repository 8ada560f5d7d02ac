/** What `toolwatch demo` runs (src/cli.ts → src/demo/cli.ts), as a process entry for test/demo/process.test.ts. */
import { runDemoCli } from '../../src/demo/cli.js';

const io = { out: (s: string) => process.stdout.write(s), err: (s: string) => process.stderr.write(s) };
runDemoCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`toolwatch demo: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
