/**
 * API tokens and away changes kept from before row signatures (migration 0025): the start that applies the migration
 * and holds the key signs them as they are, once, so an upgrade locks nobody out; a row inserted by hand after that
 * stays unsigned at every later start, is not acted on, and `audit verify` names it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { run as migrate } from '../../../src/cli/migrate.js';
import { openStores } from '../../../src/stores/open-store.js';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, withClient } from '../postgres/fresh-database.js';

const DAY = 86_400_000;
const POLICY = `
people:
  - { id: carol, accounts: { web: carol } }
  - { id: mallory, accounts: { web: mallory } }
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["person:carol"]
`;

let dir: string;
let path: string;
let t: TestServer | undefined;
let secret: string;

const raw = (sql: string, ...params: unknown[]) => {
  const db = new Database(path);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
};
const start = async () => (t = await startTestServer({ dbPath: path, policy: POLICY }));
const bearer = (s: string) => fetch(`${t!.url}/v1/requests`, { headers: { authorization: `Bearer ${s}` } });
const verify = async () =>
  (await (await t!.api('/v1/audit/verify')).json()) as { ok: boolean; problem: { message: string } | null };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-upgrade-rights-'));
  path = join(dir, 'tollgate.db');
  // An older tollgate wrote these rows unsigned (a store with no witness writes the same), then the columns it did
  // not have are taken away again and the migration forgotten, so the next start applies it as an upgrade would.
  const stores = await openStores(path);
  secret = (await stores.tokens.create({ name: 'reader', scopes: ['audit:read'] }, new Date())).secret;
  const now = Date.now();
  await stores.away.record({
    person: 'carol',
    away: { from: new Date(now - DAY), until: new Date(now + DAY), delegate: 'mallory', note: null },
    setBy: 'person:carol',
    at: new Date(now),
  });
  await stores.close();
  for (const table of ['api_tokens', 'people_away'])
    for (const column of ['signature', 'kid']) raw(`ALTER TABLE ${table} DROP COLUMN ${column}`);
  raw('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)');
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Both ways of upgrading: a gateway's start applies the migration, or `tollgate migrate` does before it. */
const upgrades = {
  'a gateway start': async () => void (await start()),
  'tollgate migrate, then a start': async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await migrate(['--db', path])).toBe(0);
      expect(out.mock.calls.map((c) => String(c[0])).join('')).toContain('signed 1 API tokens and 1 away changes');
    } finally {
      out.mockRestore();
    }
    await start();
  },
};

it.each(Object.keys(upgrades))(
  'signs the rows kept from before at %s: tokens and delegates work as before',
  async (how) => {
    await upgrades[how as keyof typeof upgrades]();
    expect((await bearer(secret)).status).toBe(200);
    const filed = await t!.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: {} } });
    const { id } = (await filed.json()) as { id: string };
    const decided = await t!.api(`/v1/requests/${id}/decision`, {
      body: { decision: 'approve', approver: 'web:mallory' },
    });
    expect(decided.status).toBe(200);
    expect((await verify()).ok).toBe(true);
  },
);

it('signs nothing at a later start: a token row inserted after the upgrade stays refused and named', async () => {
  await start();
  await t!.close();
  const forged = 'tg_forged-after-the-upgrade-0123456789abcdef';
  raw(
    `INSERT INTO api_tokens (id, name, secret_sha256, scopes, created_at) VALUES ('019a0000-0000-7000-8000-0000000000bb', 'late', ?, '["admin"]', ?)`,
    createHash('sha256').update(forged).digest('hex'),
    new Date().toISOString(),
  );
  await start();
  expect((await bearer(forged)).status).toBe(401);
  expect((await bearer(secret)).status).toBe(200);
  expect((await verify()).problem?.message).toContain('api_tokens row 019a0000-0000-7000-8000-0000000000bb');
});

it('signs them on PostgreSQL too, at the start that applies its migration 0024', async () => {
  const pg = await freshDatabase({ migrate: true });
  try {
    const stores = await openStores(pg.url);
    const kept = (await stores.tokens.create({ name: 'reader', scopes: ['audit:read'] }, new Date())).secret;
    await stores.close();
    await withClient(pg.url, async (c) => {
      for (const table of ['api_tokens', 'people_away'])
        await c.query(`ALTER TABLE ${table} DROP COLUMN signature, DROP COLUMN kid`);
      await c.query(
        'DELETE FROM drizzle.__drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM drizzle.__drizzle_migrations)',
      );
    });
    t = await startTestServer({ dbPath: pg.url, policy: POLICY });
    expect((await bearer(kept)).status).toBe(200);
    expect((await verify()).ok).toBe(true);
  } finally {
    await t?.close();
    t = undefined;
    await pg.drop();
  }
});
