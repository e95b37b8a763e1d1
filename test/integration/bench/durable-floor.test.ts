/**
 * The bench's durable floors (bench/durable-floor-server.ts) do the one synced write the gateway's call cannot do
 * without: a create commits its row before the 201; a decision commits the row's approval (once: compare-and-set on
 * pending) before it answers the long-poll parked on the request and the decision itself. On SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDurableFloorServer } from '../../../bench/processes.js';
import { openStores } from '../../../src/stores/open-store.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-durable-floor-'));
let pgDb: FreshDatabase | null = null;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pgDb?.drop();
});

async function post(url: string, body: unknown): Promise<{ status: number; body: { id: string; status: string } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { id: string; status: string } };
}

async function stored(db: string, id: string) {
  const stores = await openStores(db, { migrate: false });
  try {
    return await stores.store.get(id);
  } finally {
    await stores.close();
  }
}

async function createParkDecide(db: string) {
  const server = await startDurableFloorServer(db);
  try {
    const created = await post(`${server.url}/v1/requests`, {
      tool_name: 'bench.deploy',
      tool_args: { build: 1 },
      prompt: 'p',
      agent_id: 'a',
      session_id: 's',
    });
    expect(created).toMatchObject({ status: 201, body: { status: 'pending' } });
    const id = created.body.id;
    expect(await stored(db, id)).toMatchObject({
      id,
      status: 'pending',
      toolName: 'bench.deploy',
      toolArgs: { build: 1 },
    });

    let answered = false;
    const wait = fetch(`${server.url}/v1/requests/${id}?wait=50`).then(async (res) => {
      answered = true;
      return { status: res.status, body: (await res.json()) as { status: string } };
    });
    // A whole round trip later (another create, committed), the long-poll is still parked.
    expect((await post(`${server.url}/v1/requests`, { tool_name: 'other', tool_args: {} })).status).toBe(201);
    expect(answered).toBe(false);

    const decided = await post(`${server.url}/v1/requests/${id}/decision`, {
      decision: 'approve',
      approver: 'web:floor-test',
      reason: 'r',
    });
    expect(decided).toMatchObject({ status: 200, body: { id, status: 'approved' } });
    expect(await wait).toEqual({ status: 200, body: { id, status: 'approved' } });
    expect(await stored(db, id)).toMatchObject({
      status: 'approved',
      allowed: true,
      respondedBy: 'web:floor-test',
      respondedVia: 'api',
      reason: 'r',
    });
    // Compare-and-set: the row is no longer pending, so a second decision changes nothing.
    expect(
      (await post(`${server.url}/v1/requests/${id}/decision`, { decision: 'approve', approver: 'web:late' })).status,
    ).toBe(409);
    expect(await stored(db, id)).toMatchObject({ respondedBy: 'web:floor-test' });
  } finally {
    await server.stop();
  }
}

describe('durable floor server', () => {
  it('SQLite: commits the create, parks the long-poll, commits the approval once and answers the long-poll', async () => {
    await createParkDecide(join(dir, 'floor.db'));
  });

  it('PostgreSQL: the same, each statement its own commit', async () => {
    pgDb = await freshDatabase();
    await createParkDecide(pgDb.url);
  });
});
