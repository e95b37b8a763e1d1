/**
 * The deadline belongs to the row: on a `ManualClock`, a request filed by a gateway that then stopped (its expiry
 * timer died with it, as with a replica killed mid-request) is never decided, shown or waited on as pending past its
 * deadline by the gateway that is left, which has no timer for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { Gateway } from '../../../src/gateway/gateway.js';
import { fileOrAttach, newestMatch } from '../../../src/integrations/attach.js';
import { applyMigrations, openDatabase } from '../../../src/stores/sqlite/database.js';
import { SqliteConfirmationStore } from '../../../src/stores/sqlite/store.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';

let dir: string;
let clock: ManualClock;
const opened: { gateway: Gateway; store: SqliteConfirmationStore; stopped: boolean }[] = [];

async function gatewayOnFile(): Promise<Gateway> {
  const db = openDatabase(join(dir, 'tollgate.db'));
  applyMigrations(db);
  const store = new SqliteConfirmationStore(db);
  const gateway = new Gateway({
    store,
    scheduler: new InProcessScheduler({ clock, sweepEveryMs: 0 }),
    clock,
    channels: [createWebChannel()],
  });
  await gateway.start();
  opened.push({ gateway, store, stopped: false });
  return gateway;
}

/** A request filed by a gateway that stops at once: nobody holds its expiry timer any more. */
async function orphaned(
  timeoutS = 10,
  extra: { requiredApprovals?: number; agentId?: string; sessionId?: string } = {},
) {
  const filer = await gatewayOnFile();
  const { request } = await filer.request({ toolName: 'pay_invoice', toolArgs: { amount: 5 }, timeoutS, ...extra });
  await filer.stop();
  opened.find((o) => o.gateway === filer)!.stopped = true;
  return request;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-deadline-'));
  clock = new ManualClock(Date.parse('2026-11-25T10:00:00Z'));
});

afterEach(async () => {
  for (const { gateway, store, stopped } of opened.splice(0)) {
    if (!stopped) await gateway.stop();
    await store.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

const alice = { channel: 'web', userId: 'alice' };

describe('the deadline belongs to the row', () => {
  it('refuses a decision after the deadline although no timer expired the row, and expires it on the record', async () => {
    const survivor = await gatewayOnFile();
    const request = await orphaned(10);
    await clock.advance(10_000);
    const outcome = await survivor.decide({ requestId: request.id, decision: 'approve', actor: alice });
    expect(outcome).toMatchObject({
      ok: false,
      code: 'already_decided',
      request: { status: 'expired', allowed: false },
    });
    expect(!outcome.ok && outcome.message).toContain('expired at 2026-11-25T10:00:10.000Z');
    const events = await survivor.events(request.id);
    expect(events.map((e) => e.type)).toEqual(['created', 'delivered', 'expired', 'decision_rejected']);
    expect(events[2]).toMatchObject({ actor: 'system', detail: { late_by_ms: 0 } });
  });

  it('does not count an approval towards a quorum after the deadline', async () => {
    const survivor = await gatewayOnFile();
    const request = await orphaned(10, { requiredApprovals: 2 });
    expect(await survivor.decide({ requestId: request.id, decision: 'approve', actor: alice })).toMatchObject({
      ok: true,
      final: false,
    });
    await clock.advance(11_000);
    expect(
      await survivor.decide({ requestId: request.id, decision: 'approve', actor: { channel: 'web', userId: 'bob' } }),
    ).toMatchObject({ ok: false, code: 'already_decided' });
    expect((await survivor.get(request.id))?.status).toBe('expired');
  });

  it('never reads an overdue row as pending: get, the audit list and an export expire it first', async () => {
    const survivor = await gatewayOnFile();
    const [a, b, c] = [await orphaned(10), await orphaned(10), await orphaned(600)];
    await clock.advance(10_000);
    expect(await survivor.get(a.id)).toMatchObject({ status: 'expired', respondedBy: 'system' });
    const page = await survivor.list({ status: 'pending' });
    expect(page.items.map((r) => r.id)).toEqual([c.id]);
    expect((await survivor.get(b.id))?.status).toBe('expired');
    const exported: string[] = [];
    for await (const row of survivor.scan({})) exported.push(`${row.id}:${row.status}`);
    expect(exported.sort()).toEqual([`${a.id}:expired`, `${b.id}:expired`, `${c.id}:pending`].sort());
  });

  it("does not re-attach a runtime's re-asked call to an overdue row: the lookup expires it, and the call is filed anew", async () => {
    const survivor = await gatewayOnFile();
    const call = { agentId: 'pulsebot', sessionId: 's1', toolName: 'pay_invoice', toolArgs: { amount: 5 } };
    const request = await orphaned(10, call);
    expect(await fileOrAttach(survivor, call)).toMatchObject({ id: request.id, status: 'pending' });
    await clock.advance(10_000);
    expect(await newestMatch(survivor, call)).toMatchObject({
      id: request.id,
      status: 'expired',
      respondedBy: 'system',
    });
    const again = await fileOrAttach(survivor, call);
    expect(again.id).not.toBe(request.id);
    expect(again.status).toBe('pending');
  });

  it('wakes a parked wait at the deadline with the expired row, though no timer fires for it', async () => {
    const survivor = await gatewayOnFile();
    const request = await orphaned(10);
    const waiting = survivor.wait(request.id, 55_000);
    await clock.advance(10_000);
    await expect(waiting).resolves.toMatchObject({ status: 'expired', allowed: false });
  });

  it('answers a cancel after the deadline with a conflict saying it expired', async () => {
    const survivor = await gatewayOnFile();
    const request = await orphaned(10);
    await clock.advance(15_000);
    await expect(survivor.cancel(request.id)).rejects.toThrow(/already expired/);
    expect((await survivor.events(request.id)).filter((e) => e.type === 'expired')).toHaveLength(1);
  });
});
