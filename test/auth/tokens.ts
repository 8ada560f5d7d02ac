/** Tokens for the auth tests: random values written to files, and the `auth:` config naming them. */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Scope } from '../../src/auth/scopes.js';

export interface TestToken {
  name: string;
  value: string;
  file: string;
  scopes: Scope[];
  services?: string[];
}

export const newTokenValue = (): string => `tw_${randomBytes(24).toString('hex')}`;

/** Writes one file per token into `dir`; returns the tokens and the `auth` section that reads them. */
export function tokenConfig(dir: string, specs: Record<string, { scopes: Scope[]; services?: string[] }>) {
  const tokens: Record<string, TestToken> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const file = path.join(dir, `${name}.token`);
    const value = newTokenValue();
    writeFileSync(file, `${value}\n`);
    tokens[name] = { name, value, file, ...spec };
  }
  const auth = {
    tokens: Object.values(tokens).map((t) => ({
      name: t.name,
      token_file: t.file,
      scopes: t.scopes,
      ...(t.services ? { services: t.services } : {}),
    })),
  };
  return { tokens, auth };
}

export const bearer = (t: TestToken | string): Record<string, string> => ({
  authorization: `Bearer ${typeof t === 'string' ? t : t.value}`,
});

/** Polls an async condition (exporters send in the background). */
export async function eventually(probe: () => Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
