/**
 * People stay people (issue 49), through the real API on SQLite and PostgreSQL: a vote cast by someone who then leaves
 * the group does not complete a quorum (the event says whose vote was discounted and why); a bare `user_id` is the
 * person holding that account, so she cannot approve her own request from another account (and an id two people hold
 * is a 400 naming both); and `?person=` / `?group=` (the list, the export, `tollgate audit --person`) find the quorum
 * requests a person voted on, not only those they settled.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { run as audit } from '../../../src/cli/audit.js';
import { loadDirectory } from '../../../src/people/config.js';
import { migrationsFolder } from '../../../src/stores/migrations-folder.js';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, withClient, type FreshDatabase } from '../postgres/fresh-database.js';

const PEOPLE = `
people:
  - { id: alice, accounts: { slack: U0ALICE, web: alice } }
  - { id: bob, accounts: { slack: U0BOB, web: bob } }
  - { id: carol, accounts: { slack: U0CAROL, web: carol } }
  - { id: dave, accounts: { discord: U0SHARED, web: dave } }
  - { id: erin, accounts: { slack: U0SHARED, web: erin } }
`;
const CONFIG = `${PEOPLE}groups:\n  leads: [alice, bob, carol]\n`;
/** The same file after bob left `leads`. */
const WITHOUT_BOB = `${PEOPLE}groups:\n  leads: [alice, carol]\n`;

type Json = Record<string, unknown>;

const databases: FreshDatabase[] = [];
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
});

describe.each(['sqlite', 'postgres'] as const)('people stay people (%s)', (dialect) => {
  let t: TestServer;

  beforeEach(async () => {
    const dbPath =
      dialect === 'postgres' ? databases[databases.push(await freshDatabase({ migrate: true })) - 1]!.url : undefined;
    t = await startTestServer({ policy: CONFIG, dbPath });
  });
  afterEach(async () => {
    await t.close();
  });

  async function file(body: Json): Promise<string> {
    const res = await t.api('/v1/requests', {
      body: { tool_name: 'pay_invoice', tool_args: { amount: 1200 }, ...body },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }
  const tokens = new Map<string, string>();
  async function decideAs(as: string, id: string, decision: 'approve' | 'deny' = 'approve'): Promise<Response> {
    let secret = tokens.get(as);
    if (!secret) {
      const res = await t.api('/v1/tokens', {
        body: { name: `decide-${as.replace(/\W/g, '-')}`, scopes: ['request:decide'], as },
      });
      secret = ((await res.json()) as { secret: string }).secret;
      tokens.set(as, secret);
    }
    return fetch(`${t.url}/v1/requests/${id}/decision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision }),
    });
  }
  const read = async (id: string) => (await (await t.api(`/v1/requests/${id}`)).json()) as Json;
  const reload = (yaml: string) => t.server.people.replace(loadDirectory(parse(yaml) as Json, 'tollgate.yaml'));

  it('does not count the vote of someone who left the group before the quorum completed, and says why', async () => {
    tokens.clear();
    const id = await file({ approvers: ['group:leads'], required_approvals: 2 });
    expect((await decideAs('web:bob', id)).status).toBe(200);
    reload(WITHOUT_BOB);

    // alice's approval would be the second: bob's no longer counts, so the request waits for another lead.
    expect((await decideAs('web:alice', id)).status).toBe(200);
    expect(await read(id)).toMatchObject({ status: 'pending' });
    const alices = (await t.store.events(id)).filter((e) => e.type === 'approved').at(-1)!;
    expect(alices.detail).toMatchObject({
      person: 'alice',
      approvals: 1,
      required: 2,
      discounted: [{ person: 'bob', actor: 'web:bob', reason: expect.stringContaining('no longer an approver') }],
    });
    // bob himself is refused now, on the record, like anyone outside the list.
    expect((await decideAs('web:bob', id)).status).toBe(403);

    expect((await decideAs('web:carol', id)).status).toBe(200);
    expect(await read(id)).toMatchObject({ status: 'approved', responded_by_person: 'carol' });
    const last = (await t.store.events(id)).filter((e) => e.type === 'approved').at(-1)!;
    expect(last.detail).toMatchObject({ person: 'carol', approvals: 2, discounted: [{ person: 'bob' }] });
  });

  it('counts a vote again once its voter is back in the group (the re-check reads the directory in force)', async () => {
    tokens.clear();
    const id = await file({ approvers: ['group:leads'], required_approvals: 2 });
    expect((await decideAs('web:bob', id)).status).toBe(200);
    reload(WITHOUT_BOB);
    reload(CONFIG);
    expect((await decideAs('web:alice', id)).status).toBe(200);
    expect(await read(id)).toMatchObject({ status: 'approved', responded_by_person: 'alice' });
    expect((await t.store.events(id)).filter((e) => e.type === 'approved').at(-1)!.detail.discounted).toBeUndefined();
  });

  it('takes a bare user_id as the one person holding that account: she cannot approve it from another account', async () => {
    tokens.clear();
    const id = await file({ approvers: ['group:leads'], user_id: 'U0ALICE' });
    const asWeb = await decideAs('web:alice', id);
    expect(asWeb.status).toBe(403);
    expect(((await asWeb.json()) as { code?: string; detail?: string }).detail).toMatch(/own request/);
    expect(await read(id)).toMatchObject({ status: 'pending' });
    expect((await t.store.events(id)).find((e) => e.type === 'decision_rejected')).toMatchObject({
      actor: 'web:alice',
      detail: { code: 'self_approval' },
    });
    expect((await decideAs('web:bob', id)).status).toBe(200);
    expect(await read(id)).toMatchObject({ status: 'approved', responded_by_person: 'bob' });
  });

  it('refuses to file a bare user_id that two people hold, naming user_id and both of them', async () => {
    const res = await t.api('/v1/requests', {
      body: { tool_name: 'deploy', tool_args: {}, approvers: ['group:leads'], user_id: 'U0SHARED' },
    });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { detail: string; errors?: { path: string; message: string }[] };
    expect(JSON.stringify(problem)).toContain('user_id');
    expect(JSON.stringify(problem)).toContain('person:dave');
    expect(JSON.stringify(problem)).toContain('person:erin');
    // With its channel it names one account, and files.
    expect(
      (
        await t.api('/v1/requests', {
          body: { tool_name: 'deploy', tool_args: {}, approvers: ['group:leads'], user_id: 'slack:U0SHARED' },
        })
      ).status,
    ).toBe(201);
  });

  it('finds by ?person= and ?group= every request the person settled or voted on, page by page', async () => {
    tokens.clear();
    // bob's approvals count towards quorums others complete; he settles one himself; one he never touches.
    const quorum = await file({ approvers: ['group:leads'], required_approvals: 2 });
    expect((await decideAs('web:bob', quorum)).status).toBe(200);
    expect((await decideAs('web:alice', quorum)).status).toBe(200);
    const settled = await file({ approvers: ['group:leads'] });
    expect((await decideAs('web:bob', settled)).status).toBe(200);
    const waiting = await file({ approvers: ['group:leads'], required_approvals: 3 });
    expect((await decideAs('web:bob', waiting)).status).toBe(200);
    const denied = await file({ approvers: ['group:leads'], required_approvals: 2 });
    expect((await decideAs('web:bob', denied)).status).toBe(200);
    expect((await decideAs('web:carol', denied, 'deny')).status).toBe(200);
    const untouched = await file({ approvers: ['group:leads'] });
    expect((await decideAs('web:carol', untouched)).status).toBe(200);

    const ids = async (query: string) => {
      const found: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await t.api(`/v1/requests?limit=2&${query}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status, await res.clone().text()).toBe(200);
        const page = (await res.json()) as { items: { id: string }[]; next_cursor: string | null };
        found.push(...page.items.map((r) => r.id));
        cursor = page.next_cursor;
      } while (cursor);
      return found;
    };
    // Newest first, each once, across pages.
    expect(await ids('person=bob')).toEqual([denied, waiting, settled, quorum]);
    expect(await ids('person=bob&status=approved')).toEqual([settled, quorum]);
    expect(await ids('person=alice')).toEqual([quorum]);
    expect(await ids('group=leads')).toEqual([untouched, denied, waiting, settled, quorum]);
    // The export agrees.
    const exported = await (await t.api('/v1/requests/export?format=ndjson&person=bob')).text();
    expect(
      exported
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual([denied, waiting, settled, quorum]);
    // And `tollgate audit --person`, reading the database itself.
    const lines: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => Boolean(lines.push(String(chunk))));
    try {
      expect(await audit(['--db', t.dbPath, '--person', 'bob', '--format', 'ndjson'])).toBe(0);
    } finally {
      out.mockRestore();
    }
    expect(
      lines
        .join('')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual([denied, waiting, settled, quorum]);
  });

  it('fills the voters from the events already recorded when the migration runs (history from before it)', async () => {
    tokens.clear();
    const quorum = await file({ approvers: ['group:leads'], required_approvals: 2 });
    expect((await decideAs('web:bob', quorum)).status).toBe(200);
    expect((await decideAs('web:carol', quorum)).status).toBe(200);
    const waiting = await file({ approvers: ['group:leads'], required_approvals: 2 });
    expect((await decideAs('web:alice', waiting)).status).toBe(200);
    // As a database from before the table: no voter rows; then the migration's own statement, as written in its file.
    const backfill = readFileSync(
      join(migrationsFolder(dialect), dialect === 'sqlite' ? '0014_voters.sql' : '0015_voters.sql'),
      'utf8',
    )
      .split('--> statement-breakpoint')
      .at(-1)!;
    if (dialect === 'sqlite') {
      const db = new Database(t.dbPath);
      try {
        db.prepare('DELETE FROM confirmation_voters').run();
        db.exec(backfill);
      } finally {
        db.close();
      }
    } else {
      await withClient(t.dbPath, async (client) => {
        await client.query('DELETE FROM confirmation_voters');
        await client.query(backfill);
      });
    }
    const ids = async (person: string) =>
      ((await (await t.api(`/v1/requests?person=${person}`)).json()) as { items: { id: string }[] }).items.map(
        (r) => r.id,
      );
    expect(await ids('bob')).toEqual([quorum]);
    expect(await ids('carol')).toEqual([quorum]);
    expect(await ids('alice')).toEqual([waiting]);
  });
});
