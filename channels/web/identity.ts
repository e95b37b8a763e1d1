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
  /** Groups the provider's groups claim listed (only those the directory had at sign-in). */
  groups: string[];
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
  /** Directory groups the provider vouched for; they count as the person's own groups. */
  groups: readonly string[];
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
    return { email: value.email, name: typeof value.name === 'string' ? value.name : null, groups: value.groups.filter((g): g is string => typeof g === 'string') };
  } catch {
    return null;
  }
}

/**
 * Resolves a session. `autoPeople`: a provider sign-in the directory does not know is a person of its own, named by
 * its address (`email:<address>`), instead of someone who may decide nothing.
 */
export function identify(session: Session, directory: Directory | null, autoPeople: boolean): WebIdentity {
  const data = decodeSessionData(session.data);
  if (!data) {
    const account = `web:${session.user}`;
    return { label: account, account, person: directory?.personOf(account) ?? account, groups: [], oidc: false, email: null };
  }
  const emailAccount = `email:${data.email}`;
  const person = directory ? directory.person(directory.personOf(emailAccount)) : null;
  const label = data.name && data.name !== data.email ? `${data.name} (${data.email})` : data.email;
  const groups = directory ? data.groups.filter((g) => directory.group(g) !== null) : [];
  if (person) {
    const account = person.accounts.web ? `web:${person.accounts.web}` : `person:${person.id}`;
    return { label, account, person: person.id, groups, oidc: true, email: data.email };
  }
  if (autoPeople) return { label, account: emailAccount, person: emailAccount, groups, oidc: true, email: data.email };
  return { label, account: null, person: null, groups: [], oidc: true, email: data.email };
}
