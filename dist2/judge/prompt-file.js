/**
 * Loads a prompt version from disk. The files live in src/judge/prompts/; the compiled module
 * (dist/judge/) looks next to itself first, then in the source tree, so `npm run build` output and
 * the Docker image (which copies src/judge/prompts) both find them without a copy step.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseTemplate } from './prompt.js';
export const CURRENT_PROMPT_VERSION = 'v1';
export function promptCandidates(version) {
    return [
        fileURLToPath(new URL(`./prompts/${version}.md`, import.meta.url)),
        fileURLToPath(new URL(`../../src/judge/prompts/${version}.md`, import.meta.url)),
    ];
}
export function loadPrompt(version = CURRENT_PROMPT_VERSION) {
    if (!/^v\d+$/.test(version))
        throw new Error(`prompt version must look like v1, v2 …: ${JSON.stringify(version)}`);
    const file = promptCandidates(version).find((f) => existsSync(f));
    if (!file)
        throw new Error(`prompt ${version} not found (looked in ${promptCandidates(version).join(', ')})`);
    return parseTemplate(version, readFileSync(file, 'utf8'));
}
//# sourceMappingURL=prompt-file.js.map