/** Reading deploy/: paths, YAML (several documents, merge keys), the image's environment. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const deploy = path.join(root, 'deploy');

/** Every document of a YAML file, as plain data; throws on the first syntax error. */
export function readYamlDocs(file: string): any[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'), { merge: true, prettyErrors: true });
  return docs.map((d) => {
    if (d.errors.length) throw new Error(`${path.relative(root, file)}: ${d.errors.map((e) => e.message).join('; ')}`);
    return d.toJS({ maxAliasCount: 100 });
  });
}

export function readYaml(file: string): any {
  const [doc] = readYamlDocs(file);
  return doc;
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** `ENV` of the Dockerfile's last stage (the runtime image), e.g. HOST, PORT, DATABASE_URL. */
export function imageEnv(): Record<string, string> {
  const text = readFileSync(path.join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lastStage = text.slice(text.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const line of lastStage.split('\n')) {
    const m = /^ENV\s+(.*)$/.exec(line.trim());
    if (!m) continue;
    for (const pair of m[1]!.trim().split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}

/** host:port of a URL or address (`http://a:1/x`, `a:1`); the scheme's default port when none is given. */
export function hostPort(address: string): { host: string; port: number } {
  const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `tcp://${address}`);
  const defaults: Record<string, number> = { 'http:': 80, 'https:': 443, 'postgres:': 5432, 'postgresql:': 5432 };
  return { host: u.hostname, port: u.port ? Number(u.port) : (defaults[u.protocol] ?? NaN) };
}
