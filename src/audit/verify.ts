/**
 * @module audit/verify
 * `tollgate audit verify` and `GET /v1/audit/verify` (docs/audit.md, "What verify checks"). It trusts nothing it does
 * not check, and never re-hashes, repairs or backfills: every checkpoint's signature and number (gap-free); the
 * integrated events gap-free by `seq`, each leaf recomputed from its content and each chain hash from its leaf; every
 * event after the legacy part covered by a receipt whose signature holds and whose leaves are exactly its events'; no
 * event pending past the merge delay; every request against its witnessed events and its stored verdict token; every
 * grant against its witnessed events, every away and token row against its own signature.
 * Signatures are checked against the keys given (`--keys`, pinned) or the gateway's own, and the report says which.
 * What it cannot see: a cut of the newest events together with the checkpoints after them — an anchor or a
 * checkpoint kept outside the database shows that.
 */
import { eventsByRequest, type ConfirmationRequest } from '../requests/types.js';
import type { ConfirmationStore } from '../requests/store.js';
import { chainHash, leafOfColumns } from './leaf.js';
import { GENESIS_HASH } from './encoding.js';
import type { AuditProblem, AuditReport, KeysChecked } from './report.js';
import { editedColumns, requestMismatch, tokenMismatch } from './request-check.js';
import type { AuditChain, ChainCheckpoint, CoverageMark } from './types.js';
import type { KeyRing, Receipt, SignedCheckpoint } from './witness.js';
import { grantProblem } from './witnessed-grants.js';
import { signedRowProblem } from './witnessed-rows.js';

export { auditReportJson, type AuditProblem, type AuditReport } from './report.js';
export { requestMismatch, type RowMismatch } from './request-check.js';

/** Checks a prune checkpoint's signature (`verifyAnchor` with the keys checked against). */
export type CheckpointCheck = (checkpoint: ChainCheckpoint) => Promise<{ ok: true } | { ok: false; message: string }>;

/** Options of {@link verifyAudit}. */
export interface VerifyOptions {
  keys: KeyRing;
  keysChecked: KeysChecked;
  checkCheckpoint?: CheckpointCheck;
  /** Start after the last event before this time (`--since`). Requests are all checked still. */
  from?: Date;
  /** The stated merge delay: an event pending longer is reported. */
  maxDelayMs: number;
  now: Date;
}

const PAGE = 1000;

/** Verifies the trail and every request row; see the module comment. */
export async function verifyAudit(
  chain: AuditChain,
  store: ConfirmationStore,
  options: VerifyOptions,
): Promise<AuditReport> {
  const { keys } = options;
  const pruned = await chain.checkpoint();
  const report: AuditReport = {
    ok: true,
    events: 0,
    requests: 0,
    receipts: 0,
    checkpoints: 0,
    pending: await chain.pending(),
    head: await chain.head(),
    problem: null,
    legacy: null,
    checkpoint: pruned && { ...pruned, signatureChecked: false },
    keys: options.keysChecked,
  };
  const fail = (problem: AuditProblem): AuditReport => ({ ...report, ok: false, problem });

  if (pruned && options.checkCheckpoint) {
    const checked = await options.checkCheckpoint(pruned);
    if (!checked.ok)
      return fail({
        kind: 'bad_checkpoint',
        eventId: pruned.eventId,
        message: `the prune checkpoint at seq ${pruned.eventId} is not signed by the keys checked against: ${checked.message}`,
      });
    report.checkpoint = { ...pruned, signatureChecked: true };
  }

  // Checkpoints: numbered from 1 without a gap, each signed; the first may close the legacy part, no other may.
  const bySize = new Map<number, SignedCheckpoint>();
  let newest: SignedCheckpoint | null = null;
  for (let page = await chain.checkpoints(0, PAGE); page.length; page = await chain.checkpoints(newest!.n, PAGE)) {
    for (const c of page) {
      const expected = (newest?.n ?? 0) + 1;
      if (c.n !== expected)
        return fail({ kind: 'bad_checkpoint', message: `checkpoint ${expected} is missing (the next is ${c.n})` });
      const why = keys.checkCheckpoint(c);
      if (why) return fail({ kind: 'bad_checkpoint', message: `checkpoint ${c.n} (seq ${c.size}): ${why}` });
      if (c.kind === 'legacy' && c.n !== 1)
        return fail({
          kind: 'bad_checkpoint',
          message: `checkpoint ${c.n} closes a legacy part, which only the first may`,
        });
      if (c.kind === 'legacy') report.legacy = { size: c.size, at: c.at };
      bySize.set(c.size, c);
      newest = c;
      report.checkpoints++;
    }
  }
  const legacySize = report.legacy?.size ?? 0;
  if (report.pending.oldestAt && options.now.getTime() - Date.parse(report.pending.oldestAt) > options.maxDelayMs)
    return fail({
      kind: 'late',
      message: `${report.pending.events} event(s) wait for the integrator, the oldest since ${report.pending.oldestAt}: longer than the merge delay (${options.maxDelayMs} ms)`,
    });

  // The walk, by seq.
  const since = options.from ? await chain.lastBefore(options.from) : null;
  const start = pruned && (!since || since.seq < pruned.eventId) ? { seq: pruned.eventId, hash: pruned.hash } : since;
  let seq = start?.seq ?? 0;
  let prev = start?.hash ?? GENESIS_HASH;
  /** Receipts seen, with the leaves of theirs not yet met. */
  const open = new Map<string, { receipt: Receipt; left: Map<string, number> }>();
  const seen = new Set<string>();
  for (let rows = await chain.rows(seq, PAGE); rows.length; rows = await chain.rows(seq, PAGE)) {
    const wanted = [...new Set(rows.map((r) => r[5]).filter((id): id is string => !!id && !seen.has(id)))];
    for (const receipt of wanted.length ? await chain.receipts(wanted) : []) {
      seen.add(receipt.id);
      const why = keys.checkReceipt(receipt);
      if (why) return fail({ kind: 'unwitnessed', message: `receipt ${receipt.id}: ${why}` });
      const left = new Map<string, number>();
      for (const leaf of receipt.leaves) left.set(leaf, (left.get(leaf) ?? 0) + 1);
      open.set(receipt.id, { receipt, left });
      report.receipts++;
    }
    for (const [at, id, prevHash, hash, leaf, receiptId, ...columns] of rows) {
      const requestId = String(columns[0]);
      if (at !== seq + 1)
        return fail({
          kind: 'missing_or_inserted',
          eventId: at,
          requestId,
          message: `seq ${at} follows seq ${seq}: events ${seq + 1}…${at - 1} were deleted (or renumbered)`,
        });
      const content = leafOfColumns(columns);
      const changed =
        leaf !== content && columns[1] === 'created' ? await editedColumns(store, requestId, columns[4]) : [];
      if (changed.length)
        return fail({
          kind: 'edited',
          eventId: at,
          requestId,
          column: changed[0],
          message: `request ${requestId}: its ${changed.join(', ')} changed after filing (event ${id}, its created event, no longer matches)`,
        });
      if (leaf !== content)
        return fail({
          kind: 'edited',
          eventId: at,
          requestId,
          message: `event ${id} (seq ${at}) was edited: its content no longer gives the leaf it was witnessed with`,
        });
      if (prevHash !== prev || hash !== chainHash(prev, content))
        return fail({
          kind: 'missing_or_inserted',
          eventId: at,
          requestId,
          message: `event ${id} (seq ${at}) does not follow the chain: its hashes were rewritten or an event was moved`,
        });
      const checkpoint = bySize.get(at);
      if (checkpoint && checkpoint.head !== hash)
        return fail({
          kind: 'bad_checkpoint',
          eventId: at,
          message: `checkpoint ${checkpoint.n} signed a different head at seq ${at}: the chain up to it was rewritten`,
        });
      if (at > legacySize) {
        const witnessed = receiptId ? open.get(receiptId) : undefined;
        const count = witnessed?.left.get(content) ?? 0;
        if (!witnessed || count === 0)
          return fail({
            kind: 'unwitnessed',
            eventId: at,
            requestId,
            message: `event ${id} (seq ${at}, ${String(columns[1])} of request ${requestId}) is covered by no signed receipt: it was written around tollgate`,
          });
        if (count === 1) witnessed.left.delete(content);
        else witnessed.left.set(content, count - 1);
      }
      seq = at;
      prev = hash;
      report.events++;
    }
  }
  if (newest && newest.size > seq)
    return fail({
      kind: 'missing_or_inserted',
      eventId: seq,
      message: `checkpoint ${newest.n} signed ${newest.size} events, but the chain ends at seq ${seq}: its newest events were cut`,
    });
  // Every leaf a receipt signed is an event still here, unless a prune took it.
  for (const { receipt, left } of open.values())
    if (left.size && !options.from && !(pruned && receipt.at < pruned.prunedBefore))
      return fail({
        kind: 'missing_or_inserted',
        message: `receipt ${receipt.id} (${receipt.at}) signed ${left.size} event(s) no longer here: they were deleted`,
      });
  if (!options.from && !pruned && (await chain.receiptCount()) !== seen.size) {
    const missing = await unseenReceipt(chain, seen);
    if (missing)
      return fail({
        kind: 'missing_or_inserted',
        message: `receipt ${missing} signed events of which none is in the chain: they were deleted`,
      });
  }

  // Every request against its witnessed events and its stored token.
  const coverage: CoverageMark | null = report.legacy
    ? { eventId: (await chain.lastIdUpTo(legacySize)) ?? 0, at: new Date(report.legacy.at) }
    : null;
  let batch: ConfirmationRequest[] = [];
  const checkBatch = async (): Promise<AuditProblem | null> => {
    const ids = batch.map((r) => r.id);
    const byRequest = eventsByRequest(await store.eventsOf(ids));
    const tokens = await store.verdictTokens(ids);
    for (const request of batch) {
      const events = byRequest.get(request.id) ?? [];
      const found = requestMismatch(request, events, coverage);
      if (found)
        return {
          kind: found.kind,
          requestId: request.id,
          ...(found.column ? { column: found.column } : {}),
          message: `request ${request.id}: ${found.message}`,
        };
      const token = tokens.get(request.id);
      const created = events.find((e) => e.type === 'created');
      const legacy = !created || (coverage !== null && created.id <= coverage.eventId);
      if (request.status !== 'pending' && request.allowed !== null && !legacy && !token)
        return {
          kind: 'bad_token',
          requestId: request.id,
          message: `request ${request.id}: it is ${request.status}, but no verdict token was minted when it settled (settled around tollgate?)`,
        };
      const why = token ? tokenMismatch(request, events, token, keys) : null;
      if (why) return { kind: 'bad_token', requestId: request.id, message: `request ${request.id}: ${why}` };
      report.requests++;
    }
    batch = [];
    return null;
  };
  for await (const request of store.scan({})) {
    batch.push(request);
    if (batch.length >= 200) {
      const problem = await checkBatch();
      if (problem) return fail(problem);
    }
  }
  const problem = batch.length ? await checkBatch() : null;
  if (problem) return fail(problem);

  // Every grant row against its witnessed grant_created (and grant_revoked) events: a grant approves calls by itself.
  let after = '';
  for (let page = await chain.grants(after, PAGE); page.length; page = await chain.grants(after, PAGE)) {
    for (const audit of page) {
      const why = grantProblem(audit, keys, legacySize);
      if (why)
        return fail({
          kind: 'unwitnessed',
          requestId: audit.grant.requestId,
          message: `grant ${audit.grant.id} (request ${audit.grant.requestId}): ${why}`,
        });
    }
    after = page[page.length - 1]!.grant.id;
  }

  // Every away and token row against its own signature: each gives rights without being an event.
  for (const kind of ['away', 'token'] as const) {
    for (let rows = await chain.signedRows(kind, '', PAGE); rows.length;) {
      for (const row of rows) {
        const why = signedRowProblem(row, keys);
        if (why) return fail({ kind: 'unwitnessed', message: why });
      }
      rows = await chain.signedRows(kind, rows[rows.length - 1]!.id, PAGE);
    }
  }
  return report;
}

/**
 * A receipt id not in `seen` that no pending event names, walking receipts in id order. A receipt committed while
 * verify walked (its events not integrated yet, on PostgreSQL a replica's or a job's write) is not a deletion: the
 * merge delay covers it.
 */
async function unseenReceipt(chain: AuditChain, seen: Set<string>): Promise<string | null> {
  let after = '';
  for (let ids = await chain.receiptIds(after, PAGE); ids.length; ids = await chain.receiptIds(after, PAGE)) {
    for (const id of ids) if (!seen.has(id) && !(await chain.awaitsIntegration(id))) return id;
    after = ids[ids.length - 1]!;
  }
  return null;
}
