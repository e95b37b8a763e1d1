/**
 * @module tokens/scopes
 * What an API token may do. A token says who is calling (`name`) and what it may do (`scopes`); routes ask
 * {@link allows} before acting, so the checks live in one table-like place instead of in each handler.
 */

/** Every scope a token can hold (contract: ARCHITECTURE.md, "Tokens and identities"). */
export const SCOPES = [
  'request:create',
  'request:read',
  'request:cancel',
  'request:decide',
  'audit:read',
  'admin',
] as const;

/** One scope. */
export type Scope = (typeof SCOPES)[number];

/** The name of every token of `TOLLGATE_API_TOKENS`: what their requests record as `filed_by`. */
export const ENV_TOKEN_NAME = 'admin';

/**
 * Whether no scoped token may be called `name`: the names the configured tokens go by (`admin`, in any case). A
 * request's owner is the name of the token that filed it ({@link mayRead}, {@link mayCancel}), so a scoped token
 * sharing a configured token's name would own every request that token filed.
 */
export function isReservedTokenName(name: string): boolean {
  return name.toLowerCase() === ENV_TOKEN_NAME;
}

/** Why a reserved name is refused (the API's 400 and the CLI say the same). */
export const RESERVED_NAME_MESSAGE = `"${ENV_TOKEN_NAME}" is reserved: it is the name of the tokens of TOLLGATE_API_TOKENS, and a token owns the requests filed under its name; pick another name`;

/** The authenticated caller of an API route. */
export interface Principal {
  /** The token's id (`env` for tokens from `TOLLGATE_API_TOKENS`). */
  id: string;
  /** The token's name: recorded as `filed_by` and in decision events. */
  name: string;
  scopes: readonly Scope[];
  /** The approver identity a `request:decide` token decides as (`web:alice`, or `person:alice`: any of her accounts). */
  as: string | null;
  /** The person the token speaks for (a directory id), or null. Requests it files name it as `filed_by_person`. */
  person?: string | null;
}

/** True when `principal` holds `scope` (or `admin`, which holds every scope). */
export function allows(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes('admin') || principal.scopes.includes(scope);
}

/**
 * True when `principal` may see a request filed by `filedBy`: admins and auditors see every request, a
 * `request:read` token only the ones it filed itself.
 */
export function mayRead(principal: Principal, filedBy: string | null): boolean {
  return allows(principal, 'audit:read') || (principal.scopes.includes('request:read') && filedBy === principal.name);
}

/** True when `principal` may cancel a request filed by `filedBy` (admins, or a `request:cancel` token that filed it). */
export function mayCancel(principal: Principal, filedBy: string | null): boolean {
  return (
    principal.scopes.includes('admin') || (principal.scopes.includes('request:cancel') && filedBy === principal.name)
  );
}

/**
 * The approver identity `principal` may decide as, given the `approver` the caller named: admins (trusted bridges)
 * decide as anyone they name; a `request:decide` token only as its bound identity — or, bound to `person:<id>`, as any
 * account `personOf` says is that person's. Null when the caller may not.
 */
export function decidingIdentity(
  principal: Principal,
  approver: string | undefined,
  personOf: (account: string) => string = (a) => a,
): string | null {
  if (principal.scopes.includes('admin')) return approver ?? null;
  if (!principal.scopes.includes('request:decide') || !principal.as) return null;
  if (approver === undefined || approver === principal.as) return principal.as;
  const person = principal.as.startsWith('person:') ? principal.as.slice('person:'.length) : null;
  return person !== null && personOf(approver) === person ? approver : null;
}
