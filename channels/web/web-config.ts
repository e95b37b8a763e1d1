/**
 * @module channels/web/web-config
 * Reads the `web:` section of the YAML file (and `TOLLGATE_WEB_SECRET` plus per-user token variables from the
 * environment) into {@link WebChannelOptions}. Errors name the setting that is wrong.
 */
import { z } from 'zod';
import type { TollgateConfig } from '../../src/config.js';
import { ValidationError } from '../../src/api/errors.js';
import { fieldProblems, validationError } from '../../src/api/validation.js';
import { parsePasswordHash, USER_NAME, type WebUser } from './auth.js';
import type { SharedMarks } from '../../src/contracts/shared-marks.js';
import type { OidcClient } from './oidc/client.js';
import { oidcConfigSchema, oidcOptionsFrom, type OidcOptions } from './oidc/config.js';

const userName = z.string().regex(USER_NAME, 'letters, digits and . _ @ - only (at most 64)');

/** The `web:` section of the YAML file. */
export const webConfigSchema = z.strictObject({
  /** Print a one-time login link at start (default true). */
  login_link: z.boolean().optional(),
  /** Whom a login link signs in as (default `admin`, approver id `web:admin`). */
  login_link_user: userName.optional(),
  /** Sign-in through an OpenID provider (also `TOLLGATE_OIDC_ISSUER`, `TOLLGATE_OIDC_CLIENT_ID`, `TOLLGATE_OIDC_CLIENT_SECRET`). */
  oidc: oidcConfigSchema.optional(),
  /** With OpenID sign-in on, false turns local passwords and login links off (default true). */
  local_users: z.boolean().optional(),
  /** Session lifetime in hours (default 12). */
  session_ttl_h: z
    .number()
    .positive()
    .max(24 * 90)
    .optional(),
  users: z
    .array(
      z
        .strictObject({
          name: userName,
          password_hash: z
            .string()
            .refine(
              (h) => parsePasswordHash(h) !== null,
              'not an scrypt hash (scrypt$N$r$p$salt$hash); see docs/web.md',
            )
            .optional(),
          /** Name of the environment variable that holds this user's token. */
          token_env: z
            .string()
            .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
            .optional(),
        })
        .refine((u) => u.password_hash !== undefined || u.token_env !== undefined, 'give password_hash or token_env'),
    )
    .optional(),
});

/** Options of the web channel. Everything has a default, so `createWebChannel()` works on a fresh machine. */
export interface WebChannelOptions {
  /** Named users (none by default: then only login links get in). */
  users?: WebUser[];
  /** Whether one-time login links can be made (default true). */
  loginLinks?: boolean;
  /** Whom a login link signs in as (default `admin`). */
  linkUser?: string;
  /** Key that signs session cookies; random per process when absent (sessions then end at restart). */
  secret?: string;
  /** Session lifetime in milliseconds (default 12 h). */
  sessionTtlMs?: number;
  /** The address people use (`TOLLGATE_PUBLIC_URL`): its origin is accepted on form posts, https makes cookies Secure. */
  publicUrl?: string | null;
  /**
   * Sign-in through an OpenID provider, discovered ({@link OidcClient.discover}); off when absent. `channelsFromConfig`
   * discovers it from {@link WebOptionsFromConfig.oidcOptions} at start-up.
   */
  oidc?: OidcClient | null;
  /** Clock for session expiry and countdowns (tests). */
  now?: () => number;
  /**
   * Where unspent login links and early sign-outs live: the database on PostgreSQL, so every replica sees them
   * (`src/contracts/shared-marks.ts`); in this process's memory when absent.
   */
  marks?: SharedMarks;
  /**
   * Where early sign-outs are kept when it is not `marks`: the SQLite file, so a sign-out outlives a restart (the
   * session key does: it lives in the database too). `marks` wins when both are given.
   */
  signOuts?: SharedMarks;
}

/** The web channel's options as read from the configuration: the OpenID provider still to be discovered. */
export interface WebOptionsFromConfig extends WebChannelOptions {
  /** OpenID sign-in, when `TOLLGATE_OIDC_ISSUER` or `web.oidc` is set; null otherwise. */
  oidcOptions: OidcOptions | null;
}

/**
 * Builds the web channel's options from the configuration.
 * @throws ValidationError naming the `web.` setting or variable that is wrong.
 */
export function webOptionsFromConfig(
  config: Pick<TollgateConfig, 'file' | 'env' | 'publicUrl'> & Partial<Pick<TollgateConfig, 'configPath'>>,
): WebOptionsFromConfig {
  const parsed = webConfigSchema.safeParse(config.file.web ?? {});
  if (!parsed.success) {
    // Named as the file's own problems are (`readConfigFile`): the file, then the entry.
    const where = config.configPath ? `${config.configPath}: ` : '';
    throw validationError(fieldProblems(parsed.error.issues, 'web').map((p) => ({ ...p, path: `${where}${p.path}` })));
  }
  const web = parsed.data;
  const names = new Set<string>();
  const users: WebUser[] = (web.users ?? []).map((u, i) => {
    if (names.has(u.name)) throw new ValidationError(`web.users[${i}].name: "${u.name}" is listed twice`);
    names.add(u.name);
    let token: string | undefined;
    if (u.token_env) {
      token = config.env[u.token_env];
      if (!token || token.length < 16) {
        throw new ValidationError(`web.users[${i}].token_env: set ${u.token_env} to a token of at least 16 characters`);
      }
    }
    return { name: u.name, passwordHash: u.password_hash, token };
  });
  const oidcOptions = oidcOptionsFrom(web.oidc, config.env, config.publicUrl);
  const localUsers = web.local_users ?? true;
  if (!localUsers && !oidcOptions) {
    throw new ValidationError(
      'web.local_users: false leaves nobody a way to sign in without OpenID sign-in (set TOLLGATE_OIDC_ISSUER or web.oidc)',
    );
  }
  if (!localUsers && users.length)
    throw new ValidationError(
      'web.users: listed, but web.local_users is false (local passwords are off): remove one or the other',
    );
  return {
    oidcOptions,
    users,
    loginLinks: localUsers && (web.login_link ?? true),
    linkUser: web.login_link_user,
    secret: config.env.TOLLGATE_WEB_SECRET || undefined,
    sessionTtlMs: web.session_ttl_h !== undefined ? web.session_ttl_h * 3_600_000 : undefined,
    publicUrl: config.publicUrl,
  };
}
