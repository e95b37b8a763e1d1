/**
 * @module channels/web/identity
 * Who a session is, as the pages and the gateway need it: the account decisions are made as, the person behind it,
 * the groups an identity provider vouched for. Resolved against the directory in force at every request, so a reload
 * that adds or removes someone takes effect without signing anyone out.
 */
import type { Directory } from '../../src/people/types.js';
import type { Session } from './session.js';

/** What a sign-in through an OpenID provider learned, kept in the session (`Session.data`). */
export interface OidcSessionData {
  /** The verified address (lower case). */
  email: string;
  name: string | null;
  /**
   * Groups the provider's groups claim listed that the directory has but did not give the person at sign-in. Those the
   * directory gave are left out on purpose: the directory is read afresh at every decision, so taking a person out of
   * one of its groups takes effect at once, whatever the token said.
   */
  groups: string[];
  /** When the groups claim was read (ms since the epoch); absent in sessions from before it was kept: no group counts. */
  groupsAt?: number;
}

/** How long the groups a sign-in brought count, and the time now (both in ms). */
export interface GroupsFreshness {
  now: number;
  maxAgeMs: number;
}

/** The signed-in viewer, resolved. */
export interface WebIdentity {
  /** How the pages name them: `web:admin`, or `Alice Martin (alice@example.com)`. */
  label: string;
  /**
   * The account their decisions are recorded as: `web:<name>` for a local user or a person with a web account,
   * `person:<id>` for another person of the directory, `email:<address>` for a person of their own (`auto_people`);
   * null when they may decide nothing (signed in through the provider, unknown to the directory).
   */
  account: string | null;
  /** The directory's person (or the account itself for a person of their own); null with `account`. */
  person: string | null;
  /** Directory groups the provider vouched for, fresh enough to count; they count as the person's own groups. */
  groups: readonly string[];
  /** Until when {@link groups} count (the sign-in + `web.oidc.groups_max_age_s`); null without groups. */
  groupsUntil: Date | null;
  /** Groups the provider vouched for longer ago than `groups_max_age_s`: they no longer count (sign in again). */
  staleGroups: readonly string[];
  /** True for a sign-in through the provider. */
  oidc: boolean;
  /** The address the provider vouched for; null for a local user. */
  email: string | null;
}

/** Encodes what an OpenID sign-in learned for {@link Session.data}. */
export function encodeSessionData(data: OidcSessionData): string {
  return Buffer.from(JSON.stringify(data)).toString('base64url');
}

/** Decodes {@link Session.data}; null when it is not what {@link encodeSessionData} wrote. */
export function decodeSessionData(data: string | undefined): OidcSessionData | null {
  if (!data) return null;
  try {
    const value = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as Partial<OidcSessionData>;
    if (typeof value.email !== 'string' || !Array.isArray(value.groups)) return null;
    const groups = value.groups.filter((g): g is string => typeof g === 'string');
    return {
      email: value.email,
      name: typeof value.name === 'string' ? value.name : null,
      groups,
      ...(typeof value.groupsAt === 'number' ? { groupsAt: value.groupsAt } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * Resolves a session. `autoPeople`: a provider sign-in the directory does not know is a person of its own, named by
 * its address (`email:<address>`), instead of someone who may decide nothing. `freshness`: the provider's groups
 * count for `maxAgeMs` after the sign-in, then they are stale (kept apart, so a decision that needs them can say
 * "sign in again"); without it (no provider configured) none count.
 */
export function identify(
  session: Session,
  directory: Directory | null,
  autoPeople: boolean,
  freshness?: GroupsFreshness,
): WebIdentity {
  const data = decodeSessionData(session.data);
  if (!data) {
    const account = `web:${session.user}`;
    return {
      label: account,
      account,
      person: directory?.personOf(account) ?? account,
      groups: [],
      groupsUntil: null,
      staleGroups: [],
      oidc: false,
      email: null,
    };
  }
  const emailAccount = `email:${data.email}`;
  const person = directory ? directory.person(directory.personOf(emailAccount)) : null;
  const label = data.name && data.name !== data.email ? `${data.name} (${data.email})` : data.email;
  const vouched = directory ? data.groups.filter((g) => directory.group(g) !== null) : [];
  const until = data.groupsAt !== undefined && freshness ? data.groupsAt + freshness.maxAgeMs : null;
  const fresh = until !== null && freshness !== undefined && freshness.now <= until;
  const groups = {
    groups: fresh ? vouched : [],
    groupsUntil: fresh && vouched.length ? new Date(until) : null,
    staleGroups: fresh ? [] : vouched,
  };
  if (person) {
    const account = person.accounts.web ? `web:${person.accounts.web}` : `person:${person.id}`;
    return { label, account, person: person.id, ...groups, oidc: true, email: data.email };
  }
  if (autoPeople)
    return { label, account: emailAccount, person: emailAccount, ...groups, oidc: true, email: data.email };
  return {
    label,
    account: null,
    person: null,
    groups: [],
    groupsUntil: null,
    staleGroups: [],
    oidc: true,
    email: data.email,
  };
}
