// The attack: a request's owner is the name of the token that filed it (`filed_by`), and every token of
// TOLLGATE_API_TOKENS files as "admin". A scoped token created with the name "admin" therefore read and cancelled every
// request an administrator (or a bridge holding an environment token) had filed. The name is now reserved: creating
// such a token is a 400 naming `name` (the CLI refuses before asking), and one already in the database is refused.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/token.js';
import { UsageError } from '../../../src/cli/args.js';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresTokenStore } from '../../../src/stores/postgres/token-store.js';
import { SqliteTokenStore } from '../../../src/stores/sqlite/token-store.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, truncateAll, type FreshDatabase } from '../postgres/fresh-database.js';

let pg: FreshDatabase;
beforeAll(async () => {
  pg = await freshDatabase({ migrate: true });
});
afterAll(async () => {
  await pg?.drop();
});

describe.each(['sqlite', 'postgres'] as const)('reserved token names on %s', (dialect) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer(dialect === 'postgres' ? { dbPath: pg.url } : {});
  });
  afterEach(async () => {
    await t.close();
    if (dialect === 'postgres') await truncateAll(pg.url);
  });

  const as = (secret: string, path: string, body?: unknown) =>
    fetch(`${t.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** A request an environment (admin) token filed: `filed_by` is "admin". */
  async function adminFiled(): Promise<string> {
    const res = await t.api('/v1/requests', {
      body: { tool_name: 'payments.pay', tool_args: { amount: 5 }, approvers: ['web:alice'] },
    });
    const body = (await res.json()) as { id: string; filed_by: string };
    expect(body.filed_by).toBe('admin');
    return body.id;
  }

  it.each(['admin', 'ADMIN', 'Admin'])('POST /v1/tokens named %s → 400 naming "name", and no token', async (name) => {
    const res = await t.api('/v1/tokens', { body: { name, scopes: ['request:read', 'request:cancel'] } });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { detail: string; errors: { path: string; message: string }[] };
    expect(problem.errors[0]?.path).toBe('name');
    expect(problem.detail).toContain('reserved');
    const listed = (await (await t.api('/v1/tokens')).json()) as { items: { name: string }[] };
    expect(listed.items.map((i) => i.name.toLowerCase())).not.toContain('admin');
  });

  it('a token named "admin" already in the database cannot read or cancel what the admin filed', async () => {
    const id = await adminFiled();
    // As a gateway before this change let it be created (the store itself takes any name).
    const { secret } = await createThroughStore(dialect === 'postgres' ? pg.url : t.dbPath, 'admin');
    expect((await as(secret, `/v1/requests/${id}`)).status).toBe(401);
    expect((await as(secret, `/v1/requests/${id}/cancel`, {})).status).toBe(401);
    expect(((await (await t.api(`/v1/requests/${id}`)).json()) as { status: string }).status).toBe('pending');
  });

  it('a token with another name still owns only what it filed', async () => {
    const id = await adminFiled();
    const res = await t.api('/v1/tokens', {
      body: { name: 'agent-1', scopes: ['request:create', 'request:read', 'request:cancel'] },
    });
    const { secret } = (await res.json()) as { secret: string };
    expect((await as(secret, `/v1/requests/${id}`)).status).toBe(404);
    expect((await as(secret, `/v1/requests/${id}/cancel`, {})).status).toBe(404);
    const own = ((await (await as(secret, '/v1/requests', { tool_name: 'x' })).json()) as { id: string }).id;
    expect((await as(secret, `/v1/requests/${own}`)).status).toBe(200);
  });

  it('tollgate token create admin refuses with a clear message and creates nothing', async () => {
    const io = { stdout: { write: () => true }, env: { TOLLGATE_URL: t.url, TOLLGATE_TOKEN: t.token } };
    const refused = run(['create', 'admin', '--scope', 'request:read'], io);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(/"admin" is reserved/);
    const listed = (await (await t.api('/v1/tokens')).json()) as { items: unknown[] };
    expect(listed.items).toHaveLength(0);
  });
});

/** Creates a token through a token store of the gateway's database directly, as a gateway without the check did. */
async function createThroughStore(db: string, name: string): Promise<{ secret: string }> {
  if (db.startsWith('postgres')) {
    const open = openPostgres(db, { poolSize: 1 });
    try {
      return await new PostgresTokenStore(open).create(
        { name, scopes: ['request:read', 'request:cancel'] },
        new Date(),
      );
    } finally {
      await open.close();
    }
  }
  const sqlite = new Database(db);
  try {
    return await new SqliteTokenStore(sqlite).create({ name, scopes: ['request:read', 'request:cancel'] }, new Date());
  } finally {
    sqlite.close();
  }
}
