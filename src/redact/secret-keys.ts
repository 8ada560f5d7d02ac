/**
 * Which keys name a secret, whatever their spelling: `db_password`, `newPassword`, `OPENAI_API_KEY`,
 * `X-Api-Key`, `github_token`, `credentials`. A key is split into words (camelCase, snake_case,
 * kebab-case, dots, spaces; lower-cased) and judged on those words, so one rule covers every
 * spelling — in parsed JSON (the key of the value being masked), in `key=value` / `"key": "value"`
 * text, in `{name, value}` pairs and HTTP header tuples.
 *
 * The care is in what is NOT a secret: `max_tokens`, `prompt_tokens`, `token_count`, `page_token`,
 * `secret_name`, `api_key_env`, `password_policy`, a bare `key` (cache keys, sort keys). A key whose
 * last word describes the secret (its count, name, type, path, env variable, expiry…) names a
 * property of the secret, not the secret.
 */

/** Words that make a key secret wherever they stand (unless the last word only describes it). */
const STRONG = new Set([
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'passcode',
  'secret',
  'secrets',
  'credential',
  'credentials',
  'creds',
  'apikey',
  'apikeys',
  'privatekey',
  'secretkey',
  'accesskey',
  'authorization',
  'cookie',
  'cookies',
  'otp',
  'cvv',
  'cvc',
]);

/** Lower-case concatenations (`dbpassword`, `accesstoken`, `clientsecret`) end with one of these. */
const SUFFIXES = ['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'privatekey', 'credentials'];

/** A last word that says the key is about the secret, not the secret itself. */
const DESCRIBING = new Set([
  'at',
  'budget',
  'changed',
  'count',
  'created',
  'enabled',
  'endpoint',
  'env',
  'estimate',
  'expiration',
  'expires',
  'expiry',
  'field',
  'fields',
  'file',
  'format',
  'hint',
  'id',
  'ids',
  'index',
  'kind',
  'label',
  'len',
  'length',
  'limit',
  'max',
  'method',
  'min',
  'mode',
  'name',
  'names',
  'path',
  'policy',
  'provider',
  'ref',
  'required',
  'rotated',
  'rule',
  'rules',
  'scheme',
  'size',
  'strength',
  'ttl',
  'type',
  'updated',
  'url',
  'usage',
  'version',
]);

/** `…_token` is a secret unless it is one of these (pagination cursors, a tokenizer's special tokens). */
const HARMLESS_TOKEN = new Set([
  'page',
  'next',
  'prev',
  'previous',
  'continuation',
  'pagination',
  'cursor',
  'sync',
  'max',
  'min',
  'num',
  'stop',
  'start',
  'end',
  'special',
  'bos',
  'eos',
  'pad',
  'unk',
  'sep',
  'cls',
  'mask',
]);

/** `…_tokens` (plural) is a count or a list of text tokens (`max_tokens`) unless one of these precedes it. */
const SECRET_TOKENS = new Set(['access', 'auth', 'refresh', 'api', 'bearer', 'session', 'id', 'oauth', 'github']);

/** `…_key` is a secret after one of these (`api_key`, `private_key`, `aws_secret_access_key`); a bare key is not. */
const SECRET_KEY_KINDS = new Set([
  'access',
  'account',
  'admin',
  'api',
  'app',
  'auth',
  'client',
  'decryption',
  'deploy',
  'encryption',
  'gpg',
  'hmac',
  'license',
  'master',
  'pgp',
  'private',
  'root',
  'service',
  'session',
  'shared',
  'signing',
  'ssh',
  'storage',
  'subscription',
  'webhook',
]);

/** The words of a key: `newPassword` → new password; `OPENAI_API_KEY` → openai api key; `XApiKey` → x api key. */
export function keyWords(key: string): string[] {
  return key
    .slice(0, 200)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) =>
      STRONG.has(w) || w === 'token' ? w : (SUFFIXES.find((s) => w.length > s.length && w.endsWith(s)) ?? w),
    );
}

/**
 * Every secret key holds one of these (a cheap test first: most keys in text are not secrets). The
 * redactor's `key=value` rule and its pre-scan look for the same words (src/redact/rules.ts).
 */
export const SECRET_KEY_CANDIDATE = /pass|pw|secret|token|key|cred|auth|cookie|otp|cv[vc]/i;

/** Whether a key's value is a secret whatever it looks like. */
export function isSecretKey(key: string): boolean {
  if (!SECRET_KEY_CANDIDATE.test(key)) return false;
  // The same few keys recur in every argument and text: decided once each (bounded, so it cannot grow).
  let known = decided.get(key);
  if (known === undefined) {
    if (decided.size >= 2048) decided.clear();
    known = judge(keyWords(key));
    decided.set(key, known);
  }
  return known;
}

const decided = new Map<string, boolean>();

function judge(w: readonly string[]): boolean {
  const last = w[w.length - 1];
  if (last === undefined) return false;
  if (w.length === 1 && (last === 'pass' || last === 'pw' || last === 'auth')) return true;
  if (DESCRIBING.has(last)) return false;
  if (w.some((x) => STRONG.has(x))) return true;
  const prev = w[w.length - 2];
  if (last === 'token') return prev === undefined || !HARMLESS_TOKEN.has(prev);
  if (last === 'tokens') return prev !== undefined && SECRET_TOKENS.has(prev);
  if (last === 'key' || last === 'keys') return prev !== undefined && SECRET_KEY_KINDS.has(prev);
  return w.includes('auth');
}
