/**
 * @module config
 * Configuration of `tollgate serve`: flags, environment variables and an optional YAML file, in that order of
 * precedence. Secrets come from the environment only; the YAML file holds defaults and channel settings.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { z } from 'zod';
import { channelTargetSchema } from './api/api-schema.js';
import { ValidationError, describeError } from './api/errors.js';
import { fieldProblems, validationError } from './api/validation.js';
import { rateLimitsFileSchema, readRateLimits, type RateLimitSettings } from './tokens/rate-limits.js';
import { emptyPolicy, loadPolicy, type Policy } from './policy/index.js';
import { checkPolicyPeople } from './policy/check-people.js';
import { loadDirectory } from './people/config.js';
import { NO_DIRECTORY } from './people/no-directory.js';
import type { Directory } from './people/types.js';

/** The YAML file (`--config tollgate.yaml`). Channel sections are read by their adapters. */
export const configFileSchema = z.looseObject({
  defaults: z
    .strictObject({
      timeout_s: z.int().min(1).optional(),
      on_timeout: z.enum(['deny', 'approve']).optional(),
      options: z.array(z.string().min(1).max(75)).min(2).optional(),
      channels: z.array(channelTargetSchema).min(1).optional(),
    })
    .optional(),
  allow_self_approval: z.boolean().optional(),
  sweep_every_s: z.number().min(0).optional(),
  /** Per-token API budgets (environment variables win): `{requests, decisions, window_s}`. */
  rate_limits: rateLimitsFileSchema.optional(),
  slack: z.record(z.string(), z.unknown()).optional(),
  feishu: z.record(z.string(), z.unknown()).optional(),
  web: z.record(z.string(), z.unknown()).optional(),
  hooks: z.unknown().optional(),
  /** Approval policy rules and the rule used when none matches; compiled by `policy/load.ts` (docs/policy.md). */
  policies: z.unknown().optional(),
  default: z.unknown().optional(),
  /** The people directory: people with their accounts, and groups of them; read by `people/config.ts`. */
  people: z.unknown().optional(),
  groups: z.unknown().optional(),
  /** Webhook sinks of the event stream (`events/config.ts`). */
  events: z.unknown().optional(),
});

/** The parsed YAML file. */
export type ConfigFile = z.infer<typeof configFileSchema>;

/** Everything `serve` needs to start. */
export interface TollgateConfig {
  port: number;
  host: string;
  dbPath: string;
  redisUrl: string | null;
  /** Bearer tokens accepted on `/v1`. */
  apiTokens: string[];
  /** True when no token was configured and one was generated for this run (it is printed once). */
  tokenGenerated: boolean;
  callbackSecret: string | null;
  /** Per-token `/v1` budgets (`TOLLGATE_RATE_LIMIT*`, the file's `rate_limits`, else generous defaults). */
  rateLimits: RateLimitSettings;
  /** The address people use to reach this gateway (links in cards, the login link). */
  publicUrl: string | null;
  logLevel: string;
  /**
   * `TOLLGATE_RETENTION_DAYS`: requests decided more than this many days ago are pruned in the background
   * (`history/retention`); null (unset) keeps everything.
   */
  retentionDays: number | null;
  /** The parsed YAML file (empty when none). */
  file: ConfigFile;
  /** The approval policy compiled from the file's `policies:` and `default:` (asks for everything when absent). */
  policy: Policy;
  /** The people directory from the file's `people:` and `groups:` (knows nobody when absent). */
  directory: Directory;
  /** The YAML file's path, when there is one (SIGHUP reloads it). */
  configPath: string | null;
  /** The environment the config was read from; channel adapters read their credentials from it. */
  env: Record<string, string | undefined>;
}

/** Flags of `tollgate serve`. */
export interface ServeFlags {
  port?: number;
  db?: string;
  config?: string;
  host?: string;
}

/**
 * Builds the configuration from flags, environment and the YAML file.
 * @throws ValidationError naming the variable or file path that is wrong.
 */
export function loadConfig(
  flags: ServeFlags = {},
  env: Record<string, string | undefined> = process.env,
): TollgateConfig {
  const configPath = flags.config || env.TOLLGATE_CONFIG || null;
  const file = configPath ? readConfigFile(configPath) : {};
  const port = flags.port ?? (env.PORT ? Number(env.PORT) : 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ValidationError(`PORT: not a port number: ${env.PORT}`);
  const tokens = (env.TOLLGATE_API_TOKENS ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const { policy, directory } = configPath
    ? loadPolicyAndPeople(file, configPath)
    : { policy: emptyPolicy(), directory: NO_DIRECTORY };
  const tokenGenerated = tokens.length === 0;
  if (tokenGenerated) tokens.push(`tg_${randomBytes(24).toString('base64url')}`);
  return {
    port,
    host: flags.host ?? env.HOST ?? '127.0.0.1',
    dbPath: flags.db ?? env.TOLLGATE_DB ?? './data/tollgate.db',
    redisUrl: env.REDIS_URL || null,
    apiTokens: tokens,
    tokenGenerated,
    callbackSecret: env.TOLLGATE_CALLBACK_SECRET || null,
    rateLimits: readRateLimits(env, file.rate_limits),
    publicUrl: env.TOLLGATE_PUBLIC_URL || null,
    logLevel: env.LOG_LEVEL ?? 'info',
    retentionDays: retentionDays(env.TOLLGATE_RETENTION_DAYS),
    file,
    policy,
    directory,
    configPath,
    env,
  };
}

/**
 * `TOLLGATE_RETENTION_DAYS`: a whole number of days, 1 or more; unset or empty keeps history forever.
 * @throws ValidationError naming the variable and what it got.
 */
export function retentionDays(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const days = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(days) || days < 1) {
    throw new ValidationError(
      `TOLLGATE_RETENTION_DAYS: expected a whole number of days, 1 or more (requests decided longer ago are pruned), got ${JSON.stringify(text)}; unset it to keep every request`,
    );
  }
  return days;
}

/**
 * The policy and the people directory of one config file, checked against each other: a rule naming a `person:` or
 * `group:` the directory does not have is an error naming the rule. Start-up and reload both come through here.
 */
export function loadPolicyAndPeople(file: ConfigFile, path: string): { policy: Policy; directory: Directory } {
  const policy = loadPolicy(file, path);
  const directory = loadDirectory(file, path);
  checkPolicyPeople(policy, directory);
  return { policy, directory };
}

/**
 * The YAML parser, loaded when there is a file to read: a gateway run from the environment alone never holds it
 * (its 70-odd modules are a megabyte or two of an idle process).
 */
function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as typeof Yaml;
  return parse(text);
}

/** Reads and validates the YAML file; errors name the file and the path inside it. */
export function readConfigFile(path: string): ConfigFile {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8')) ?? {};
  } catch (error) {
    throw new ValidationError(`${path}: ${describeError(error)}`);
  }
  const result = configFileSchema.safeParse(raw);
  if (result.success) return result.data;
  throw validationError(
    fieldProblems(result.error.issues, '', '(top level)').map((p) => ({ ...p, path: `${path}: ${p.path}` })),
  );
}
