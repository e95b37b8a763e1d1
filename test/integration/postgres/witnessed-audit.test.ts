/**
 * The witnessed audit trail on PostgreSQL (docs/audit.md, "The proof"): writers take no chain-wide lock (a create, a
 * vote, an event and an expiry all commit while another transaction holds the old chain lock and an uncommitted
 * event), two integrators on two pools place concurrent writers' events gap-free and exactly once, a settling vote
 * stores the verdict token it minted (one statement or its transaction, a quorum too), an expiry writes its receipt
 * and tokens, and a batched create that meets an existing idempotency key still leaves every receipt exact.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Integrator } from '../../../src/audit/integrator.js';
import { toApiRequest } from '../../../src/requests/serialize.js';
import { openStores, type OpenStores } from '../../../src/stores/open-store.js';
import { file, newRequest, vote } from '../../contracts/store-fixtures.js';
import { witness } from '../audit/witnessed.js';
import { freshDatabase, withClient, type FreshDatabase } from './fresh-database.js';

let db: FreshDatabase | undefined;
afterAll(async () => {
  await db?.drop();
});

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

describe('witnessed audit trail on PostgreSQL', () => {
  let stores: OpenStores;
  let audit: Awaited<ReturnType<typeof witness>>;
  const others: OpenStores[] = [];
  const sql = <T extends object>(text: string, values: unknown[] = []) =>
    withClient(db!.url, async (c) => (await c.query<T>(text, values)).rows);
  const another = async () => {
    const opened = await openStores(db!.url);
    opened.useWitness(audit.witness);
    others.push(opened);
    return opened;
  };

  beforeEach(async () => {
    db ??= await freshDatabase({ migrate: true });
    await sql(
      'TRUNCATE confirmation_events, channel_messages, confirmation_requests, audit_receipts, chain_checkpoints, verdict_tokens RESTART IDENTITY CASCADE',
    );
    await sql(
      "UPDATE chain_head SET size = 0, hash = repeat('0', 64), checkpoint = 0, checkpoint_at = NULL, checkpoint_size = 0, legacy = NULL",
    );
    stores = await openStores(db.url);
    audit = await witness(stores);
  });

  afterEach(async () => {
    for (const s of others.splice(0)) await s.close();
    await stores.close();
  });

  it('commits creates, votes, events and expiries while another transaction holds the old chain lock and an event', async () => {
    const first = await file(stores.store, {}, new Date());
    const store = stores.store;
    await withClient(db!.url, async (holder) => {
      await holder.query('BEGIN');
      // What every writer waited on until this stage: the chain's advisory lock, held to commit by an inserting writer.
      await holder.query('SELECT pg_advisory_xact_lock(7130413505)');
      await holder.query(
        "INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at) VALUES ($1, 'reminded', NULL, 'web', '{}', now())",
        [first.id],
      );
      const second = await file(store, {}, new Date());
      await store.get(second.id);
      const settled = await store.decide(second.id, vote('web:alice', 'approve', 0, { at: new Date() }));
      await store.appendEvent(first.id, { type: 'reminded', actor: null, channel: 'web', detail: {}, at: new Date() });
      const due = await file(store, { timeoutS: 1 }, new Date(Date.now() - 60_000));
      const expired = await store.expireDue(new Date(), 10);
      expect(settled.kind).toBe('final');
      expect(expired.map((r) => r.id)).toEqual([due.id]);
      await holder.query('ROLLBACK');
    });
    expect(await audit.verify()).toMatchObject({ ok: true, events: 6 });
  });

  it('places the events of two writers exactly once, gap-free, with two integrators on two pools', async () => {
    const second = await another();
    const rival = new Integrator(second.integration, audit.witness);
    let writing = true;
    const integrating = [audit.integrator, rival].map(async (integrator) => {
      while (writing) await integrator.runOnce();
    });
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const on = i % 2 ? second.store : stores.store;
        const request = await file(on, { toolName: `tool_${i}` }, new Date());
        await on.get(request.id);
        await on.decide(request.id, vote(`web:user${i}`, i % 3 ? 'approve' : 'deny', 0, { at: new Date() }));
        await on.appendEvent(request.id, {
          type: 'reminded',
          actor: null,
          channel: 'web',
          detail: { i },
          at: new Date(),
        });
      }),
    );
    writing = false;
    await Promise.all(integrating);
    await rival.runOnce();
    const [counts] = await sql<{ n: number; placed: number; distinct: number; low: number; high: number }>(
      'SELECT count(*)::int AS n, count(seq)::int AS placed, count(DISTINCT seq)::int AS distinct, min(seq)::int AS low, max(seq)::int AS high FROM confirmation_events',
    );
    expect(counts).toEqual({ n: 180, placed: 180, distinct: 180, low: 1, high: 180 });
    const [head] = await sql<{ size: string }>('SELECT size FROM chain_head WHERE id = 1');
    expect(Number(head!.size)).toBe(180);
    expect(await audit.verify()).toMatchObject({ ok: true, events: 180, requests: 60 });
  });

  it('stores the token a settling vote minted, in one statement, in its transaction, and for a quorum', async () => {
    const tokenOf = async (id: string) =>
      (await sql<{ token: string }>('SELECT token FROM verdict_tokens WHERE request_id = $1', [id]))[0]?.token;
    // One statement: the row was read here, so its tool and arguments are known before the vote.
    const single = await file(stores.store, { toolName: 'wire' }, new Date());
    await stores.store.get(single.id);
    const approved = await stores.store.decide(
      single.id,
      vote('web:carol', 'approve', 0, { at: new Date(), person: 'carol' }),
    );
    if (approved.kind !== 'final') throw new Error(`expected final, got ${approved.kind}`);
    const token = toApiRequest(approved.request).verdict_token;
    expect(token).toBeTruthy();
    expect(await tokenOf(single.id)).toBe(token);
    expect(claimsOf(token!)).toMatchObject({ jti: single.id, tool: 'wire', allowed: true, people: ['carol'] });
    // Its transaction: another replica that never read the row.
    const denied = await file(stores.store, {}, new Date());
    const second = await another();
    const result = await second.store.decide(
      denied.id,
      vote('web:dave', 'deny', 0, { at: new Date(), person: 'dave' }),
    );
    if (result.kind !== 'final') throw new Error(`expected final, got ${result.kind}`);
    expect(await tokenOf(denied.id)).toBe(toApiRequest(result.request).verdict_token);
    expect(claimsOf((await tokenOf(denied.id))!)).toMatchObject({ allowed: false, people: ['dave'] });
    // A quorum: the token names both approvers, in order.
    const quorum = await file(stores.store, { requiredApprovals: 2 }, new Date());
    await stores.store.decide(quorum.id, vote('web:erin', 'approve', 0, { at: new Date(), person: 'erin' }));
    await stores.store.decide(quorum.id, vote('web:frank', 'approve', 0, { at: new Date(), person: 'frank' }));
    expect(claimsOf((await tokenOf(quorum.id))!)).toMatchObject({ allowed: true, people: ['erin', 'frank'] });
    // Reads return the stored token, signing nothing.
    const read = await audit.reads.get(quorum.id);
    expect(toApiRequest(read!).verdict_token).toBe(await tokenOf(quorum.id));
    expect(await audit.verify()).toMatchObject({ ok: true, requests: 3 });
  });

  it('writes one receipt and a token per row for an expiry sweep', async () => {
    const past = new Date(Date.now() - 60_000);
    const due = [
      await file(stores.store, { timeoutS: 1 }, past),
      await file(stores.store, { timeoutS: 2, onTimeout: 'approve' }, past),
    ];
    const expired = await stores.store.expireDue(new Date(), 10);
    expect(expired.map((r) => r.id)).toEqual(due.map((r) => r.id));
    const events = await sql<{ leaf: string; receipt_id: string }>(
      "SELECT leaf, receipt_id FROM confirmation_events WHERE type = 'expired' ORDER BY id",
    );
    expect(events).toHaveLength(2);
    expect(new Set(events.map((e) => e.receipt_id)).size).toBe(1);
    const [receipt] = await sql<{ leaves: string }>('SELECT leaves FROM audit_receipts WHERE id = $1', [
      events[0]!.receipt_id,
    ]);
    expect(receipt!.leaves).toBe(events.map((e) => e.leaf).join(','));
    const tokens = await sql<{ request_id: string; token: string }>('SELECT request_id, token FROM verdict_tokens');
    expect(tokens.map((t) => claimsOf(t.token).allowed).sort()).toEqual([false, true]);
    expect(await audit.verify()).toMatchObject({ ok: true, events: 4, requests: 2 });
  });

  it('keeps receipts exact when a batched create meets an existing idempotency key', async () => {
    const existing = await stores.store.create(newRequest({ idempotencyKey: 'k1' }, new Date()), []);
    const results = await Promise.all([
      stores.store.create(newRequest({ idempotencyKey: 'k1' }, new Date()), []),
      stores.store.create(newRequest({ idempotencyKey: 'k2' }, new Date()), []),
      stores.store.create(newRequest({}, new Date()), []),
    ]);
    expect(results.map((r) => r.created)).toEqual([false, true, true]);
    expect(results[0]!.request.id).toBe(existing.request.id);
    expect(await audit.verify()).toMatchObject({ ok: true, events: 3, requests: 3 });
  });
});
