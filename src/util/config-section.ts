/**
 * A section of the config file, owned by the folder whose settings it holds: the key it sits under,
 * its JSON Schema (defaults included), the environment variables it reads and how they override the
 * file, and how the validated value becomes the typed, checked setting. src/config.ts composes the
 * sections into one schema, validates the whole file once, builds every section whose shape is right
 * and reports every problem at once — a section only adds its own to `problems`, by their path.
 * Nothing but these `env` hooks and `build` (given `ctx.env` by the loader) reads the environment.
 */
export type Env = Readonly<Record<string, string | undefined>>;

/** What every section's build may use. */
export interface SectionContext {
  /** The config file, absolute, when there is one. */
  configPath: string | undefined;
  /** Relative paths in the file resolve against this: the config file's folder, else the working directory. */
  baseDir: string;
  cwd: string;
  env: Env;
}

export interface SectionEnv {
  /** Every variable the section reads (the README documents each; `toolwatch config check` shows the set ones). */
  readonly names: readonly string[];
  /**
   * Applies the variables to the section's raw value before the schema sees it, returning the new
   * raw value (or the one given); a value the schema could not name the variable for is reported here.
   */
  apply?(raw: unknown, env: Env, problems: string[]): unknown;
}

export interface ConfigSection<File = never, Value = unknown, Ctx extends SectionContext = SectionContext> {
  /** The section's top-level key in the file (`server`, `database_url`). */
  readonly key: string;
  /** Plain JSON Schema, defaults included, so the YAML in config/ only documents them. */
  readonly schema: object;
  readonly env?: SectionEnv;
  /** The typed setting from the validated value; checks a schema cannot express add to `problems`. */
  build(file: File, ctx: Ctx, problems: string[]): Value;
}

/**
 * A section's raw value to set keys on: itself when it is a mapping, a fresh one when it is absent,
 * undefined when it is something else (left as it is, for the schema to report).
 */
export function rawMapping(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return {};
  return typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
}
