/**
 * A gateway on PostgreSQL survives losing its connections: after `pg_terminate_backend` the pool reconnects and no
 * acknowledged verdict is lost; while the server cannot be reached (a TCP proxy in front of it, stopped), `/readyz`
 * says the database is not ready and a new request gets a 503 problem+json; both recover when it is back.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, PG_ADMIN_URL, type FreshDatabase } from './fresh-database.js';

let database: FreshDatabase;
let gateway: TestServer | undefined;

beforeAll(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});
afterAll(async () => {
  await database?.drop();
});

/** A TCP proxy to 127.0.0.1:5432 that can be stopped (refusing and cutting connections) and started again. */
async function pgProxy() {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const up = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(5432, '127.0.0.1');
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server!.close(() => resolve());
    });
  await up();
  return { url: () => database.url.replace(':5432/', `:${port}/`), up, down };
}

const newRequest = { tool_name: 'deploy', tool_args: { env: 'prod' } };

describe('postgres connection loss', () => {
  it('reconnects after pg_terminate_backend, with every acknowledged verdict still there', async () => {
    gateway = await startTestServer({ dbPath: database.url });
    const { id } = (await (await gateway.api('/v1/requests', { body: newRequest })).json()) as { id: string };
    expect(
      (
        await gateway.api(`/v1/requests/${id}/decision`, {
          body: { decision: 'deny', approver: 'web:alice', reason: 'not today' },
        })
      ).status,
    ).toBe(200);

    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      const killed = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database.name],
      );
      expect(killed.rowCount).toBeGreaterThan(0);
      await eventually(async () => expect((await gateway!.api('/readyz')).status).toBe(200), 10_000, 100);
      expect(await (await gateway.api(`/v1/requests/${id}`)).json()).toMatchObject({
        status: 'denied',
        reason: 'not today',
        responded_by: 'web:alice',
      });
      expect((await gateway.api('/v1/requests', { body: newRequest })).status).toBe(201);
      // The replica lock came back on a new connection too.
      await eventually(
        async () => {
          const locks = await admin.query(
            "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND a.datname = $1 AND l.granted",
            [database.name],
          );
          expect(locks.rows[0].n).toBe(1);
        },
        10_000,
        100,
      );
    } finally {
      await admin.end();
    }
  });

  it('is not ready and answers 503 problem+json while the database is unreachable, and recovers', async () => {
    const proxy = await pgProxy();
    gateway = await startTestServer({ dbPath: proxy.url() });
    const { id } = (await (await gateway.api('/v1/requests', { body: newRequest })).json()) as { id: string };
    expect(
      (await gateway.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:alice' } }))
        .status,
    ).toBe(200);

    await proxy.down();
    const ready = await gateway.api('/readyz');
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: Record<string, { ready: boolean }> }).checks.database?.ready).toBe(false);
    const refused = await gateway.api('/v1/requests', { body: newRequest });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await refused.json()).toMatchObject({
      status: 503,
      detail: expect.stringMatching(/database cannot be reached/),
    });

    await proxy.up();
    await eventually(async () => expect((await gateway!.api('/readyz')).status).toBe(200), 10_000, 100);
    expect(await (await gateway.api(`/v1/requests/${id}`)).json()).toMatchObject({ status: 'approved', allowed: true });
    expect((await gateway.api('/v1/requests', { body: newRequest })).status).toBe(201);
  });
});
