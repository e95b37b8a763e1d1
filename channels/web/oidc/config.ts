/**
 * @module channels/web/oidc/config
 * The `web.oidc:` section and the `TOLLGATE_OIDC_*` variables, read into {@link OidcOptions}. A variable wins over
 * the same field of the file, so a secret can stay out of the file. Errors name the variable or the field.
 */
import { z } from 'zod';
import { ValidationError } from '../../../src/api/errors.js';

/** The `web.oidc:` section of the YAML file. */
export const oidcConfigSchema = z.strictObject({
  issuer: z.string().optional(),
  client_id: z.string().min(1).optional(),
  client_secret: z.string().min(1).optional(),
  /** Scopes beyond `openid email profile` (a provider's groups scope, for example). */
  scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope token')).optional(),
  /** The claim holding the address matched against the people directory (default `email`). */
  email_claim: z.string().min(1).optional(),
  /** The claim listing the groups the provider puts the person in (none by default). */
  groups_claim: z.string().min(1).optional(),
  /** Only addresses of these domains may sign in. */
  allowed_domains: z.array(z.string().min(1)).optional(),
  /** Only people in one of these provider groups may sign in (needs `groups_claim`). */
  allowed_groups: z.array(z.string().min(1)).optional(),
  /** Someone the directory does not know becomes a person of their own, named by their address (default false). */
  auto_people: z.boolean().optional(),
  /**
   * Whether an ID token must say `email_verified: true` for its `email` (default true). False, set on purpose for a
   * provider that never sends the claim (Entra ID), lets a token without it in; one that sends anything but true is
   * still refused.
   */
  require_verified_email: z.boolean().optional(),
  /** How far the provider's clock may be off, in seconds (default 60). */
  clock_tolerance_s: z.number().int().min(0).max(600).optional(),
  /** How long the groups an ID token listed count for a session, in seconds (default 900); then sign in again. */
  groups_max_age_s: z.number().int().min(60).max(86_400).optional(),
});

/** Sign-in with an OpenID provider, resolved and checked. */
export interface OidcOptions {
  issuer: URL;
  clientId: string;
  /** Absent for a public client (PKCE only). */
  clientSecret?: string;
  /** `<public url>/ui/auth/callback`. */
  redirectUri: string;
  /** Where the provider sends the browser back after signing out (`<public url>/ui/login`). */
  postLogoutRedirectUri: string;
  scopes: string[];
  emailClaim: string;
  groupsClaim: string | null;
  allowedDomains: string[];
  allowedGroups: string[];
  autoPeople: boolean;
  /** `email_verified` must be `true` (else only a present claim that is not `true` refuses). */
  requireVerifiedEmail: boolean;
  clockToleranceS: number;
  /** How long the groups claim of a sign-in counts, in seconds (`groups_max_age_s`). */
  groupsMaxAgeS: number;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Whether `url` may be an issuer: https anywhere, http only on a loopback address (a local provider, tests). */
export function issuerProblem(url: URL): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && (LOOPBACK.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)))
    return null;
  return url.protocol === 'http:'
    ? 'http:// is accepted only on a loopback address (127.0.0.1, ::1, localhost); use https://'
    : 'must be an https:// URL';
}

/**
 * The OpenID sign-in options, or null when neither `TOLLGATE_OIDC_ISSUER` nor `web.oidc.issuer` is set (the embedded
 * default: no provider needed).
 * @throws ValidationError naming the variable or field that is missing or wrong.
 */
export function oidcOptionsFrom(
  section: z.output<typeof oidcConfigSchema> | undefined,
  env: Record<string, string | undefined>,
  publicUrl: string | null,
): OidcOptions | null {
  const file = section ?? {};
  const issuerText = env.TOLLGATE_OIDC_ISSUER?.trim() || file.issuer;
  if (!issuerText) {
    if (section)
      throw new ValidationError('web.oidc.issuer: required (or set TOLLGATE_OIDC_ISSUER)', [
        { path: 'web.oidc.issuer', message: 'required' },
      ]);
    return null;
  }
  const where = env.TOLLGATE_OIDC_ISSUER?.trim() ? 'TOLLGATE_OIDC_ISSUER' : 'web.oidc.issuer';
  let issuer: URL;
  try {
    issuer = new URL(issuerText);
  } catch {
    throw new ValidationError(`${where}: not a URL: ${issuerText}`, [{ path: where, message: 'not a URL' }]);
  }
  const problem = issuerProblem(issuer);
  if (problem) throw new ValidationError(`${where}: ${problem}`, [{ path: where, message: problem }]);
  const clientId = env.TOLLGATE_OIDC_CLIENT_ID?.trim() || file.client_id;
  if (!clientId)
    throw new ValidationError('TOLLGATE_OIDC_CLIENT_ID: required with an OpenID issuer (or web.oidc.client_id)', [
      { path: 'TOLLGATE_OIDC_CLIENT_ID', message: 'required' },
    ]);
  if (!publicUrl) {
    throw new ValidationError(
      'TOLLGATE_PUBLIC_URL: required with OpenID sign-in: the redirect URI is <public url>/ui/auth/callback',
      [{ path: 'TOLLGATE_PUBLIC_URL', message: 'required' }],
    );
  }
  const base = publicUrl.replace(/\/+$/, '');
  if (file.allowed_groups?.length && !file.groups_claim) {
    throw new ValidationError('web.oidc.allowed_groups: needs web.oidc.groups_claim (the claim listing the groups)', [
      { path: 'web.oidc.allowed_groups', message: 'needs groups_claim' },
    ]);
  }
  return {
    issuer,
    clientId,
    clientSecret: env.TOLLGATE_OIDC_CLIENT_SECRET?.trim() || file.client_secret,
    redirectUri: `${base}/ui/auth/callback`,
    postLogoutRedirectUri: `${base}/ui/login`,
    scopes: [...new Set(['openid', 'email', 'profile', ...(file.scopes ?? [])])],
    emailClaim: file.email_claim ?? 'email',
    groupsClaim: file.groups_claim ?? null,
    allowedDomains: (file.allowed_domains ?? []).map((d) => d.toLowerCase().replace(/^@/, '')),
    allowedGroups: file.allowed_groups ?? [],
    autoPeople: file.auto_people ?? false,
    requireVerifiedEmail: file.require_verified_email ?? true,
    clockToleranceS: file.clock_tolerance_s ?? 60,
    groupsMaxAgeS: file.groups_max_age_s ?? 900,
  };
}
