/**
 * @module requests/coverage
 * What the audit chain proves about a request row, column by column (docs/audit.md, "What the chain covers").
 *
 * The chain hashes each event's own fields, and a `created` event also hashes nine columns of its request (see
 * `audit/encoding.ts`). It sits with the requests because both stores write it and `audit/verify.ts` reads it.
 * Everything else a row says is tied to a chained event here:
 *
 * - **What was asked** (tool, arguments' hash, approvers, quorum, prompt, requester, filer, deadline, on-timeout…) is
 *   digested into the `created` event's `detail.asked` when the row is written, and again into an `escalated` event's
 *   when an escalation changes the approvers ({@link askedDigest}). `tool_args` is tied through `args_sha256`:
 *   `audit verify` recomputes it from the arguments.
 * - **What was decided** is already in the settling event itself: its type is the status, its actor the responder,
 *   its channel the channel, its time `responded_at`, its detail the person, the absentee they stood in for
 *   (`on_behalf_of`), reason, option and approved arguments; `allowed` follows from the status and `on_timeout`.
 *   {@link decidedMismatch} compares the row with it.
 *
 * The digest is `v1.<SHA-256 hex>.<an 8-hex tag per column>`: the SHA-256 over every column is the proof; the tags,
 * FNV-1a of each column alone, only let `audit verify` name which column changed. Events written before migration
 * `chain_coverage` (its `coverage_started` mark) carry no digest and are checked as before.
 */
import { createHash } from 'node:crypto';
import { argsSha256, canonicalJson } from './args-hash.js';
import { isAllowed } from './state-machine.js';
import { isoString } from '../utils/iso-time.js';
import type { ConfirmationEvent, ConfirmationRequest, NewEvent } from './types.js';

/**
 * The columns `detail.asked` covers, in digest order: every column that says what was asked. Nine of them the chain's
 * encoding covers as well; they are here too so that `audit verify` can name the one that changed.
 */
export const ASKED_COLUMNS = [
  'tool_name',
  'args_sha256',
  'approvers',
  'required_approvals',
  'prompt',
  'options',
  'user_id',
  'agent_id',
  'session_id',
  'tool_call_id',
  'filed_by',
  'filed_by_person',
  'callback_url',
  'metadata',
  'created_at',
  'expires_at',
  'on_timeout',
  'agent_kind',
  'context',
] as const;

/**
 * How many of {@link ASKED_COLUMNS} every digest covers. The last two (a coding agent's `agent_kind` and `context`,
 * migration `agent_context`) are digested only when either is set, so a digest written before they existed still
 * holds for its row (both null), and setting or clearing either later changes the digest all the same.
 */
const ALWAYS_ASKED = 17;

/** The request fields {@link askedDigest} reads. */
export type AskedFields = Pick<
  ConfirmationRequest,
  | 'toolName'
  | 'argsSha256'
  | 'approvers'
  | 'requiredApprovals'
  | 'prompt'
  | 'options'
  | 'userId'
  | 'agentId'
  | 'sessionId'
  | 'toolCallId'
  | 'filedBy'
  | 'filedByPerson'
  | 'callbackUrl'
  | 'metadata'
  | 'createdAt'
  | 'expiresAt'
  | 'onTimeout'
  | 'agentKind'
  | 'context'
>;

/** Each asked column as the text the digest takes (JSON values canonical, so both stores' forms agree). */
function askedValues(r: AskedFields): (string | null)[] {
  const always = [
    r.toolName,
    r.argsSha256,
    // Lists of strings: JSON.stringify is their canonical JSON already (only object keys need sorting).
    JSON.stringify(r.approvers),
    String(r.requiredApprovals),
    r.prompt,
    JSON.stringify(r.options),
    r.userId,
    r.agentId,
    r.sessionId,
    r.toolCallId,
    r.filedBy,
    r.filedByPerson,
    r.callbackUrl,
    isEmpty(r.metadata) ? '{}' : canonicalJson(r.metadata),
    isoString(r.createdAt),
    isoString(r.expiresAt),
    r.onTimeout,
  ];
  // See ALWAYS_ASKED: a row without them digests as it did before they existed.
  if ((r.agentKind ?? null) === null && (r.context ?? null) === null) return always;
  return [...always, r.agentKind ?? null, r.context ? canonicalJson(r.context) : null];
}

/** Whether `o` has no keys (most requests' metadata): its canonical JSON is `{}` without a replacer's walk. */
function isEmpty(o: Record<string, unknown> | null | undefined): boolean {
  for (const _ in o) return false;
  return true;
}

/** Length-prefixed, as the chain's own encoding: unambiguous whatever a value holds. */
function field(value: string | null): string {
  return value === null ? '-;' : `${value.length}:${value};`;
}

/**
 * FNV-1a (32 bits) of `text[from, to)`: a tag to name a column by, never the proof (that is the SHA-256). Read from
 * the one joined string, which is flat: each field's own template string is a rope that `charCodeAt` would flatten.
 */
function tag(text: string, from = 0, to = text.length): string {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The encoded fields joined (what the SHA-256 takes) and each field's tag, in one pass. */
function encode(r: AskedFields): { text: string; tags: string[] } {
  const fields = askedValues(r).map(field);
  const text = fields.join('');
  const tags: string[] = [];
  let at = 0;
  for (const f of fields) tags.push(tag(text, at, (at += f.length)));
  return { text, tags };
}

/** `detail.asked` of a `created` (or `escalated`) event: see the module comment. */
export function askedDigest(r: AskedFields): string {
  const { text, tags } = encode(r);
  const sha = createHash('sha256').update(`tollgate-asked-v1\n${text}`, 'utf8').digest('hex');
  return `v1.${sha}.${tags.join('')}`;
}

/** The `created` event of a new row, its detail carrying {@link askedDigest} (both stores write it this way). */
export function createdEvent(request: ConfirmationRequest, detail: Record<string, unknown> | undefined): NewEvent {
  return {
    type: 'created',
    actor: request.userId,
    channel: null,
    detail: { ...detail, ...(request.summary ? { risk: request.summary.risk } : {}), asked: askedDigest(request) },
    at: request.createdAt,
  };
}

/** An escalation's event, its detail carrying the digest of the row as the escalation leaves it (new approvers). */
export function escalatedEvent(escalated: ConfirmationRequest, event: NewEvent): NewEvent {
  return { ...event, detail: { ...event.detail, asked: askedDigest(escalated) } };
}

/**
 * The asked columns of `r` that differ from `digest` (by their tags; every column when the digest is unreadable or
 * only the SHA-256 differs), or an empty list when the row matches.
 */
export function askedMismatch(r: AskedFields, digest: unknown): string[] {
  if (typeof digest === 'string' && digest === askedDigest(r)) return [];
  const tags = typeof digest === 'string' && /^v1\.[0-9a-f]{64}\.[0-9a-f]+$/.test(digest) ? digest.split('.')[2]! : '';
  const { tags: now } = encode(r);
  const none = tag(field(null));
  // A column the row leaves out (the agent columns, both null) is null; a column the digest leaves out was null then.
  const named = ASKED_COLUMNS.flatMap((column, i) => {
    const value = now[i] ?? none;
    const was = tags.slice(i * 8, i * 8 + 8);
    return (was ? was === value : i >= ALWAYS_ASKED && value === none) ? [] : [column];
  });
  return named.length ? named : [...ASKED_COLUMNS];
}

/** Why `r.tool_args` disagrees with `args_sha256` (which the chain covers), or null. */
export function argsMismatch(r: Pick<ConfirmationRequest, 'toolName' | 'toolArgs' | 'argsSha256'>): string | null {
  return argsSha256(r.toolName, r.toolArgs) === r.argsSha256 ? null : 'tool_args';
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const time = (d: Date | null): number | null => (d ? d.getTime() : null);

/**
 * The decided columns of a final row that differ from its settling event, as `[column, row value, event value]`, or
 * null when they all agree. `status`, `responded_by` and `approved_args` are compared by `requestMismatch` already.
 */
export function decidedMismatch(
  r: ConfirmationRequest,
  settling: ConfirmationEvent,
): [column: string, row: unknown, event: unknown] | null {
  const d = settling.detail;
  const vote = settling.type === 'approved' || settling.type === 'denied';
  const expected: [string, unknown, unknown][] = [
    ['responded_at', time(r.respondedAt), settling.at.getTime()],
    ['responded_via', r.respondedVia, settling.channel],
    ['responded_by_person', r.respondedByPerson, vote ? text(d.person) : null],
    ['on_behalf_of', r.onBehalfOf, vote ? text(d.on_behalf_of) : null],
    ['reason', r.reason, text(d.reason)],
    ['decision_option', r.decisionOption, vote ? text(d.option) : null],
    ['allowed', r.allowed, isAllowed(r.status, r.onTimeout)],
  ];
  const found = expected.find(([, row, event]) => row !== event);
  if (!found) return null;
  const [column, row, event] = found;
  return column === 'responded_at'
    ? [column, r.respondedAt?.toISOString() ?? null, settling.at.toISOString()]
    : [column, row, event];
}
