/**
 * The tool registry: tool definitions from the files named in `tools:`. It answers for a service
 * when a request carried no definitions of its own.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { toToolDef } from '../tools/tooldefs.js';
const ALL = '*';
export class ToolRegistry {
    /** service (or '*') → tool name → definition */
    byService = new Map();
    add(service, tools) {
        const key = service ?? ALL;
        let map = this.byService.get(key);
        if (!map)
            this.byService.set(key, (map = new Map()));
        for (const t of tools)
            map.set(t.name, t);
    }
    /** The definition a service's call to `name` is checked against: the service's own first. */
    lookup(service, name) {
        return this.byService.get(service)?.get(name) ?? this.byService.get(ALL)?.get(name);
    }
    /** Whether the registry knows any tool for this service (else its calls are unvalidated). */
    knows(service) {
        return (this.byService.get(service)?.size ?? 0) > 0 || (this.byService.get(ALL)?.size ?? 0) > 0;
    }
    names(service) {
        const names = new Set([...(this.byService.get(ALL)?.keys() ?? []), ...(this.byService.get(service)?.keys() ?? [])]);
        return [...names].sort();
    }
    get size() {
        let n = 0;
        for (const m of this.byService.values())
            n += m.size;
        return n;
    }
}
/**
 * One registry file (JSON or YAML: an array of definitions, or `{tools: [...]}`) in file order; every
 * entry that is not a tool definition is reported. Also read by `toolwatch eval` for a suite's tools.
 */
export function readToolFile(file, read = (p) => readFileSync(p, 'utf8')) {
    let doc;
    try {
        const text = read(file);
        doc = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
    }
    catch (err) {
        return { ok: false, problems: [`tools: ${file}: ${err.message}`] };
    }
    const list = Array.isArray(doc) ? doc : doc?.tools;
    if (!Array.isArray(list))
        return { ok: false, problems: [`tools: ${file}: must hold an array of tool definitions`] };
    const defs = [];
    const problems = [];
    list.forEach((entry, i) => {
        const def = toToolDef(entry);
        if (!def) {
            const shapes = 'OpenAI, flat, Vercel, Anthropic and MCP shapes are accepted';
            problems.push(`tools: ${file}[${i}]: not a tool definition (needs a name; ${shapes})`);
        }
        else
            defs.push(def);
    });
    return problems.length ? { ok: false, problems } : { ok: true, defs };
}
/** Reads every registry file; a file that cannot be read or holds a bad entry is reported, not skipped. */
export function loadToolRegistry(sources, read = (p) => readFileSync(p, 'utf8')) {
    const registry = new ToolRegistry();
    const problems = [];
    for (const src of sources) {
        const file = readToolFile(src.path, read);
        if (file.ok)
            registry.add(src.service, file.defs);
        else
            problems.push(...file.problems);
    }
    return problems.length ? { ok: false, problems } : { ok: true, registry };
}
//# sourceMappingURL=registry.js.map