/**
 * @module audit/leaf
 * The fifth stage's audit encoding (docs/audit.md, "The proof"). Three digests, each over length-prefixed fields so
 * no field can be made to read as another:
 *
 * ```
 * leaf       = hex(SHA-256("tollgate-leaf-v1\n" + F(request_id) F(type) F(actor) F(channel) F(C(detail)) F(at) R))
 * chain      = hex(SHA-256("tollgate-chain-v2\n" + prev + "\n" + leaf))                     (prev of seq 1: 64 zeros)
 * receipt    = Ed25519("tollgate-receipt-v1\n" + F(id) F(kid) F(at) F(leaf₁,leaf₂,…))          (one per transaction)
 * checkpoint = Ed25519("tollgate-checkpoint-v1\n" + F(n) F(size) F(head) F(at) F(kind) F(kid))
 * ```
 * `C(detail)` is the canonical JSON of the event's detail (keys sorted, `requests/args-hash.ts`), so a writer computes
 * the leaf from the object it inserts and a verifier from what either database gives back (PostgreSQL's `jsonb`
 * reorders keys). `R` is as in the first chain (`encoding.ts`): a `created` event's request fields, else `-;`.
 *
 * The leaf is what the writing process witnesses and signs (a receipt); the chain is what the integrator assigns
 * after commit, in `seq` order (`integrator.ts`); a checkpoint signs the chain's size and head.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../requests/args-hash.js';
import { isoString } from '../utils/iso-time.js';

/** The request fields a `created` event's hash covers (immutable after filing), as text. */
export interface ChainedRequestFields {
  toolName: string;
  argsSha256: string;
  requiredApprovals: string;
  onTimeout: string;
  createdAt: string;
  expiresAt: string;
  userId: string | null;
  agentId: string | null;
  filedBy: string | null;
}

/** An event as the writer knows it, before it is stored. */
export interface LeafEvent {
  requestId: string;
  type: string;
  actor: string | null;
  channel: string | null;
  detail: unknown;
  /** `canonicalJson(detail)`, when the caller has it already. */
  detailJson?: string;
  /** ISO-8601 UTC with milliseconds. */
  at: string;
  /** For a `created` event, its request's immutable fields; otherwise null. */
  request: ChainedRequestFields | null;
}

/** A field of the encodings: `-;` for NULL, else its UTF-8 byte length, `:`, the value and `;`. */
export function field(value: string | null): string {
  return value === null ? '-;' : `${Buffer.byteLength(value, 'utf8')}:${value};`;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The request fields of a `created` event's leaf (and the first chain's hash), in their fixed order. */
export function requestPart(r: ChainedRequestFields | null): string {
  if (!r) return field(null);
  return [
    r.toolName,
    r.argsSha256,
    r.requiredApprovals,
    r.onTimeout,
    r.createdAt,
    r.expiresAt,
    r.userId,
    r.agentId,
    r.filedBy,
  ]
    .map(field)
    .join('');
}

/** The leaf digest of one event (see the module comment). */
export function leafOf(e: LeafEvent): string {
  const fields = [e.requestId, e.type, e.actor, e.channel, e.detailJson ?? canonicalJson(e.detail ?? {}), e.at]
    .map(field)
    .join('');
  return sha256(`tollgate-leaf-v1\n${fields}${requestPart(e.type === 'created' ? e.request : null)}`);
}

/** The chain hash at a position: the previous one's and this event's leaf. */
export function chainHash(prev: string, leaf: string): string {
  return sha256(`tollgate-chain-v2\n${prev}\n${leaf}`);
}

/** The bytes a batch receipt's signature covers. */
export function receiptMessage(r: { id: string; kid: string; at: string; leaves: readonly string[] }): Buffer {
  return Buffer.from(`tollgate-receipt-v1\n${field(r.id)}${field(r.kid)}${field(r.at)}${field(r.leaves.join(','))}`);
}

/** What a checkpoint is about: the integrator's periodic head, a prune's cut, or the close of a pre-receipt chain. */
export type CheckpointKind = 'head' | 'prune' | 'legacy';

/** A signed checkpoint's fields. */
export interface CheckpointFields {
  /** Gap-free checkpoint number, from 1. */
  n: number;
  /** Events in the chain up to here (the `seq` of the last one). */
  size: number;
  /** The chain hash at `size` (64 zeros when `size` is 0). */
  head: string;
  at: string;
  kind: CheckpointKind;
  kid: string;
}

/** The bytes a checkpoint's signature covers. */
export function checkpointMessage(c: CheckpointFields): Buffer {
  return Buffer.from(
    `tollgate-checkpoint-v1\n${[String(c.n), String(c.size), c.head, c.at, c.kind, c.kid].map(field).join('')}`,
  );
}

/**
 * The leaf of an event from its stored columns — `request_id, type, actor, channel, detail (JSON text), at (ISO)`,
 * then for a `created` event its request's nine fields — as `audit verify` and the integrator read them back.
 */
export function leafOfColumns(columns: readonly (string | number | null)[]): string {
  const [requestId, type, actor, channel, detail, at, ...r] = columns.map((v) =>
    v === null || v === undefined ? null : String(v),
  );
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail ?? '{}');
  } catch {
    // Not JSON: no writer of tollgate's stores this; its leaf is of the text, so it matches no receipt.
    parsed = detail;
  }
  const request =
    type === 'created' && r[0]
      ? {
          toolName: r[0],
          argsSha256: r[1] ?? '',
          requiredApprovals: r[2] ?? '',
          onTimeout: r[3] ?? '',
          createdAt: r[4] ?? '',
          expiresAt: r[5] ?? '',
          userId: r[6] ?? null,
          agentId: r[7] ?? null,
          filedBy: r[8] ?? null,
        }
      : null;
  return leafOf({
    requestId: requestId ?? '',
    type: type ?? '',
    actor: actor ?? null,
    channel: channel ?? null,
    detail: parsed,
    at: at ?? '',
    request,
  });
}

/**
 * An event as a writer stores it — its detail as canonical JSON, its time as ISO text — and, when it is witnessed, its
 * leaf: what both stores' witnessed inserts write. A `created` event passes its request's stored fields.
 */
export function storedEvent(
  requestId: string,
  e: { type: string; actor: string | null; channel: string | null; detail: unknown; at: Date },
  request: ChainedRequestFields | null,
  witnessed: boolean,
): { detail: string; at: string; leaf: string | null } {
  const detail = canonicalJson(e.detail ?? {});
  const at = isoString(e.at);
  const { type, actor, channel } = e;
  const leaf = witnessed
    ? leafOf({ requestId, type, actor, channel, detail: e.detail, detailJson: detail, at, request })
    : null;
  return { detail, at, leaf };
}
