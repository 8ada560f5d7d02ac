/**
 * What the eval subcommands share besides the dispatcher in cli.ts: the I/O and dependency seams, the
 * usage error (exit 2), atomic report writes, and the model list a run's flags select. A file of its
 * own so that subcommands in their own folders (bfcl/, generate/) need not import cli.ts, which
 * imports them.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { modelLabel, PROVIDERS } from './suite.js';
export class UsageError extends Error {
}
/** Written whole or not at all: a temp file renamed into place. */
export function writeAtomic(file, text) {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, file);
}
export function modelsFrom(suite, v) {
    const names = typeof v.models === 'string'
        ? v.models
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : typeof v.model === 'string'
            ? [v.model]
            : [];
    if (v.provider !== undefined && !PROVIDERS.includes(v.provider))
        throw new UsageError(`--provider: must be one of ${PROVIDERS.join(', ')}`);
    if (typeof v['base-url'] === 'string' && !/^https?:\/\//.test(v['base-url']))
        throw new UsageError('--base-url: must be an http(s) URL');
    if (typeof v['api-key-env'] === 'string' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v['api-key-env']))
        throw new UsageError('--api-key-env: must be an environment variable name');
    const over = {
        ...(typeof v.provider === 'string' ? { provider: v.provider } : {}),
        ...(typeof v['base-url'] === 'string' ? { baseUrl: v['base-url'] } : {}),
        ...(typeof v['api-key-env'] === 'string' ? { apiKeyEnv: v['api-key-env'] } : {}),
    };
    if (!names.length) {
        if (!suite.settings.models.length)
            throw new UsageError('no model: give --model/--models or list models in suite.yaml');
        return suite.settings.models.map((m) => ({ ...m, ...over }));
    }
    return names.map((name) => {
        const known = suite.settings.models.find((m) => m.label === name || m.model === name);
        if (known)
            return { ...known, ...over };
        const provider = over.provider ?? 'openai';
        return { provider, model: name, label: modelLabel(provider, name), ...over };
    });
}
//# sourceMappingURL=cli-common.js.map