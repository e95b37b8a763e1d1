/**
 * @module hooks/interpolate
 * `${NAME}` in YAML string values: replaced by the environment variable, `${NAME:-fallback}` when unset or
 * empty, `$${` for a literal `${`. An unset variable without fallback is an error naming the path, so a
 * missing secret never turns silently into an empty header.
 */
import { HookConfigError, formatPath } from './config-errors.js';

const PATTERN = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Returns a copy of `value` with every string interpolated from `env`. */
export function interpolateEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  file?: string,
  path: readonly PropertyKey[] = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(PATTERN, (whole, escape: string, name: string, fallback: string | undefined) => {
      if (escape) return whole.slice(1);
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new HookConfigError(`environment variable ${name} is not set`, file, formatPath('', path));
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, file, [...path, i]));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateEnv(v, env, file, [...path, k])]));
  }
  return value;
}
