/**
 * @module channels/web/oidc/claims
 * Who a validated ID token says signed in, and whether they may: the address (the `email` claim or the configured
 * one) must be there and, for `email`, marked verified (`email_verified: true`, unless `require_verified_email` is
 * off on purpose), its domain among `allowed_domains`, and one of the groups among `allowed_groups`, when those are
 * set. Only directory groups the directory does not give the person already are kept: the session cookie carries
 * them, and a provider listing hundreds of groups would not fit in one.
 */
import type { Directory } from '../../../src/people/types.js';
import type { OidcSessionData } from '../identity.js';
import { OidcSignInError } from './errors.js';
import type { OidcOptions } from './config.js';

const MAX_GROUPS = 50;

/**
 * The session data of a validated ID token's claims.
 * @throws OidcSignInError (403) when the token names nobody usable or someone not allowed to sign in.
 */
export function signInOf(
  claims: Record<string, unknown>,
  options: OidcOptions,
  directory: Directory | null,
  now: number,
): OidcSessionData {
  const raw = claims[options.emailClaim];
  const email = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) {
    throw new OidcSignInError(
      403,
      'no_email',
      `The identity provider did not say who you are: its answer has no address in the "${options.emailClaim}" claim.`,
    );
  }
  // `email_verified` speaks of the `email` claim only; another claim is one the operator chose as trustworthy.
  if (options.emailClaim === 'email') checkVerified(claims, email, options.requireVerifiedEmail);
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (options.allowedDomains.length && !options.allowedDomains.includes(domain)) {
    throw new OidcSignInError(403, 'domain_not_allowed', `Addresses at ${domain} may not sign in to this gateway.`);
  }
  const claimed = options.groupsClaim ? claims[options.groupsClaim] : undefined;
  const groups = Array.isArray(claimed) ? claimed.filter((g): g is string => typeof g === 'string') : [];
  if (options.allowedGroups.length && !groups.some((g) => options.allowedGroups.includes(g))) {
    throw new OidcSignInError(403, 'group_not_allowed', 'You are not in a group that may sign in to this gateway.');
  }
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : null;
  // Groups the directory gives the person already are its to take away: kept in the session too, they would outlive a
  // reload that removed the person from one (issue 49). Only what the provider adds is kept, with the time it said so.
  const given = directory ? directory.groupsOf(directory.personOf(`email:${email}`)) : [];
  return {
    email,
    name,
    groups: groups.filter((g) => directory?.group(g) && !given.includes(g)).slice(0, MAX_GROUPS),
    groupsAt: now,
  };
}

/**
 * Refuses an address the provider does not say it verified: `email_verified` must be the boolean true (a string
 * "true" is not: a provider that sends one is not following the standard closely enough to be trusted with it).
 * Entra ID never sends `email_verified`; its optional claim `xms_edov` ("email domain owner verified": the address's
 * domain is one the user's tenant has verified) stands in for it when the token has no `email_verified`. With
 * `required` off (set on purpose), a token with neither passes.
 */
function checkVerified(claims: Record<string, unknown>, email: string, required: boolean): void {
  const verified = claims.email_verified ?? claims.xms_edov;
  if (verified === true) return;
  if (verified === undefined) {
    if (!required) return;
    throw new OidcSignInError(
      403,
      'email_verified_missing',
      `The identity provider did not say it has verified the address ${email} (no email_verified claim), so it cannot sign you in here.`,
    );
  }
  throw new OidcSignInError(
    403,
    'email_unverified',
    `The identity provider has not verified the address ${email}, so it cannot sign you in here.`,
  );
}
