/**
 * The attack: sign-outs lived in the gateway's memory on SQLite, while the session key lives in the database. A
 * session cookie copied before its owner signed out (a shared computer, a stolen laptop's browser profile) worked
 * again as soon as the gateway restarted. Sign-outs are now kept in the database on both stores: after a restart on
 * the same SQLite file or PostgreSQL database, the old cookie is still refused, and a session never signed out still
 * works (the key is the same, so the refusal is the sign-out's doing). `tollgate migrate` carries the key from SQLite
 * to PostgreSQL, so it carries the sign-outs too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { copySqliteToPostgres } from '../../../src/stores/postgres/copy-from-sqlite.js';
import { openDatabase } from '../../../src/stores/sqlite/database.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';
import { formValue, WebClient } from './web-client.js';

let pg: FreshDatabase;
let dir: string;
beforeAll(async () => {
  pg = await freshDatabase({ migrate: true });
  dir = mkdtempSync(join(tmpdir(), 'tollgate-sign-out-'));
});
afterAll(async () => {
  await pg?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(['sqlite', 'postgres'] as const)('a sign-out outlives a restart on %s', (dialect) => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  const db = () => (dialect === 'postgres' ? pg.url : join(dir, 'tollgate.db'));

  /** A browser signed in through a fresh one-time login link. */
  async function signedIn(server: TestServer): Promise<{ browser: WebClient; csrf: string; cookie: string }> {
    const { url } = (await (await server.api('/v1/web/login-links', { body: {} })).json()) as { url: string };
    const browser = new WebClient(server.url);
    const inbox = await browser.request(url);
    expect(inbox.path).toBe('/ui');
    return { browser, csrf: formValue(inbox.text, '_csrf'), cookie: browser.cookies.get('tollgate_session')! };
  }

  const replay = async (server: TestServer, cookie: string) => {
    const res = await fetch(`${server.url}/ui`, {
      headers: { cookie: `tollgate_session=${cookie}` },
      redirect: 'manual',
    });
    return { status: res.status, location: res.headers.get('location') };
  };

  it('sign in, sign out, restart on the same database, replay the old cookie → refused', async () => {
    t = await startTestServer({ dbPath: db() });
    const out = await signedIn(t);
    const kept = await signedIn(t);
    const signOut = await out.browser.request('/ui/logout', { form: { _csrf: out.csrf }, headers: { origin: t.url } });
    expect(signOut.path).toBe('/ui/login');
    expect(await replay(t, out.cookie)).toMatchObject({ status: 303, location: expect.stringMatching(/^\/ui\/login/) });

    await t.close();
    t = await startTestServer({ dbPath: db() });
    expect(await replay(t, out.cookie)).toMatchObject({ status: 303, location: expect.stringMatching(/^\/ui\/login/) });
    expect((await replay(t, kept.cookie)).status).toBe(200);
  });
});

describe('a sign-out survives tollgate migrate from SQLite to PostgreSQL', () => {
  let target: FreshDatabase;
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    await target?.drop();
  });

  it('the session key and the sign-out both move: the old cookie stays refused, a kept one still works', async () => {
    const path = join(dir, 'moved.db');
    t = await startTestServer({ dbPath: path });
    const links = async () =>
      ((await (await t!.api('/v1/web/login-links', { body: {} })).json()) as { url: string }).url;
    const out = new WebClient(t.url);
    const inbox = await out.request(await links());
    const outCookie = out.cookies.get('tollgate_session')!;
    const kept = new WebClient(t.url);
    await kept.request(await links());
    await out.request('/ui/logout', { form: { _csrf: formValue(inbox.text, '_csrf') }, headers: { origin: t.url } });
    await t.close();
    t = undefined;

    target = await freshDatabase({ migrate: true });
    const source = openDatabase(path);
    const pool = openPostgres(target.url, { poolSize: 1 });
    try {
      await copySqliteToPostgres(source, pool);
    } finally {
      source.sqlite.close();
      await pool.close();
    }
    t = await startTestServer({ dbPath: target.url });
    const replay = (cookie: string) =>
      fetch(`${t!.url}/ui`, { headers: { cookie: `tollgate_session=${cookie}` }, redirect: 'manual' });
    expect((await replay(outCookie)).status).toBe(303);
    expect((await replay(kept.cookies.get('tollgate_session')!)).status).toBe(200);
  });
});
