/**
 * @module cli/config-file
 * Which YAML file a command reads: `--config FILE`, else `TOLLGATE_CONFIG`, else `./tollgate.yaml` when the working
 * directory has one, else none. Said once here so `serve` and `policy` find the same file, and `serve` can say which.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** The file found and how: what `serve` prints at start. */
export interface ConfigChoice {
  path: string | null;
  source: '--config' | 'TOLLGATE_CONFIG' | './tollgate.yaml' | null;
}

/** The default file, looked for in the working directory. */
export const DEFAULT_CONFIG_FILE = 'tollgate.yaml';

/** Finds the config file: the flag, the variable, then `./tollgate.yaml` if it exists. */
export function findConfigFile(
  flagValue: string | undefined,
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): ConfigChoice {
  if (flagValue) return { path: flagValue, source: '--config' };
  if (env.TOLLGATE_CONFIG) return { path: env.TOLLGATE_CONFIG, source: 'TOLLGATE_CONFIG' };
  const local = resolve(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(local) ? { path: local, source: './tollgate.yaml' } : { path: null, source: null };
}

/** The start-up line: `config: /srv/tollgate.yaml (TOLLGATE_CONFIG)`, or that none was read. */
export function configLine(choice: ConfigChoice): string {
  return choice.path
    ? `config: ${choice.path} (from ${choice.source})`
    : `config: none (no --config, no TOLLGATE_CONFIG, no ./${DEFAULT_CONFIG_FILE}): built-in defaults`;
}
