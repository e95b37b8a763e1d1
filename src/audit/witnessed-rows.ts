/**
 * @module audit/witnessed-rows
 * The two rights-giving writes that are not events (docs/audit.md, "The proof"): an away change (`people_away`: a
 * delegate may decide for the absentee) and an API token (`api_tokens`: a caller that may file and decide). The
 * process that writes such a row signs its meaningful fields in the same statement or transaction, and stores the
 * signature and its key's `kid` on the row:
 *
 * ```
 * away  = Ed25519("tollgate-away-v1\n"  + F(id) F(person) F(away_from) F(away_until) F(delegate) F(note) F(set_by) F(at))
 * token = Ed25519("tollgate-token-v1\n" + F(id) F(name) F(secret_sha256) F(C(scopes)) F(as_identity) F(person)
 *                                       F(created_at) F(expires_at) F(revoked_at))
 * ```
 * `F` is `leaf.ts`'s length-prefixed field, times are ISO-8601 UTC with milliseconds, `C` canonical JSON. A row whose
 * signature does not verify with the gateway's keys is not acted on (no delegation, no authentication) and
 * `audit verify` names it. Without this, one `INSERT` by a database writer made mallory carol's delegate, or gave them
 * a token of their own secret.
 *
 * @remarks Left out: putting a row back to an earlier signed version of itself (a revoked token's pre-revocation row
 * and signature, an away row deleted so that the one before it is in force again). These rows are not events of the
 * chain, so nothing orders them; docs/audit.md says so.
 */
import { canonicalJson } from '../requests/args-hash.js';
import { field } from './leaf.js';
import type { KeyRing } from './witness.js';

/** A row's signature and the key that made it, as stored (both null: written unsigned). */
export interface RowSeal {
  kid: string | null;
  signature: string | null;
}

/** What an away row's signature covers. */
export interface AwayRowFields {
  id: number;
  person: string;
  from: Date | null;
  until: Date | null;
  delegate: string | null;
  note: string | null;
  setBy: string;
  at: Date;
}

/** What a token row's signature covers. */
export interface TokenRowFields {
  id: string;
  name: string;
  secretSha256: string;
  scopes: readonly string[];
  as: string | null;
  person: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/**
 * ISO text of a time. A column written by hand that is no time (SQLite text no Date reads, PostgreSQL's `infinity`,
 * which the driver gives as a number) gives text no signed row has, never a throw.
 */
const iso = (d: Date | null): string | null =>
  d === null ? null : d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : `invalid:${String(d)}`;

/** The bytes an away row's signature covers. */
export function awayRowMessage(r: AwayRowFields): Buffer {
  const fields = [String(r.id), r.person, iso(r.from), iso(r.until), r.delegate, r.note, r.setBy, iso(r.at)];
  return Buffer.from(`tollgate-away-v1\n${fields.map(field).join('')}`);
}

/** The bytes a token row's signature covers. */
export function tokenRowMessage(r: TokenRowFields): Buffer {
  const fields = [
    r.id,
    r.name,
    r.secretSha256,
    canonicalJson(r.scopes),
    r.as,
    r.person,
    iso(r.createdAt),
    iso(r.expiresAt),
    iso(r.revokedAt),
  ];
  return Buffer.from(`tollgate-token-v1\n${fields.map(field).join('')}`);
}

/** Verified rows remembered per checker: beyond this many, it starts again (tokens and away rows are few). */
const REMEMBERED = 10_000;

/**
 * Checks row signatures against one gateway's keys, remembering the rows that verified (by kind and id, with a
 * fingerprint of the stored columns and the seal): a token is authenticated on every API call, and one Ed25519
 * verification each (~80 µs) would be most of the call's CPU. A row changed in any column or in its seal is checked
 * afresh; the fingerprint is of the stored text, so a hit costs neither the verification nor building the message.
 */
export class RowSeals {
  private readonly verified = new Map<string, string>();

  constructor(readonly keys: KeyRing) {}

  /**
   * Why the row `kind:id` is not witnessed, or null when it is. `print` determines `message` (the row's stored columns,
   * unambiguously joined, seal included); `message` is built only when the row is not remembered.
   */
  why(kind: 'away' | 'token', id: string | number, print: string, message: () => Buffer, seal: RowSeal): string | null {
    if (!seal.kid || !seal.signature) return 'it is not signed: written around tollgate (or before migration 0025)';
    const key = `${kind}:${id}`;
    if (this.verified.get(key) === print) return null;
    const why = this.keys.checkSigned(seal.kid, message(), seal.signature);
    if (why) return why.replace(/^its signature/, 'its signature (the row was edited)');
    if (this.verified.size >= REMEMBERED) this.verified.clear();
    this.verified.set(key, print);
    return null;
  }
}

/** An away or token row as `audit verify` reads it: its place, the bytes it should be signed over, its seal. */
export interface SignedRowAudit extends RowSeal {
  kind: 'away' | 'token';
  /** The row's id. */
  id: string;
  /** Whose row it is (the away row's person, the token's name). */
  owner: string;
  message: Buffer;
}

/** What `audit verify` says of a signed row (null: nothing). */
export function signedRowProblem(row: SignedRowAudit, keys: KeyRing): string | null {
  const why = new RowSeals(keys).why(row.kind, row.id, '', () => row.message, row);
  if (!why) return null;
  const what = row.kind === 'away' ? `people_away row ${row.id} (person ${row.owner})` : `api_tokens row ${row.id}`;
  return `${what}${row.kind === 'token' ? ` (token "${row.owner}")` : ''}: ${why}`;
}

/**
 * Each person's newest away row that is witnessed: `latest` are the newest rows, and `older(person)` that person's rows
 * newest first, read only when the newest one fails (a row inserted around tollgate).
 */
export async function witnessedLatest<R extends { person: string }>(
  latest: readonly R[],
  witnessed: (row: R) => boolean,
  older: (person: string) => Promise<R[]>,
): Promise<R[]> {
  const kept: R[] = [];
  for (const row of latest) {
    if (witnessed(row)) kept.push(row);
    else {
      const found = (await older(row.person)).find(witnessed);
      if (found) kept.push(found);
    }
  }
  return kept;
}
