/**
 * Email links used once across replicas: spent links are marks in PostgreSQL's `shared_marks`, so a link used on one
 * replica is refused on another (each replica with its own process memory; only the database is shared), and of two
 * replicas spending the same link at once exactly one wins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsedLinks } from '../../../channels/email/used-links.js';
import { openPostgres, type OpenPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresMarks } from '../../../src/stores/postgres/marks.js';
import { makeEmailHarness, type EmailHarness } from '../../fakes/email/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from './fresh-database.js';

const SECRET = 'one-deployment-email-links-key';

let database: FreshDatabase;
let pools: OpenPostgres[] = [];
let one: EmailHarness;
let two: EmailHarness;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
  pools = [openPostgres(database.url, { poolSize: 2 }), openPostgres(database.url, { poolSize: 2 })];
  [one, two] = await Promise.all([
    makeEmailHarness({ secret: SECRET, marks: new PostgresMarks(pools[0]!) }),
    makeEmailHarness({ secret: SECRET, marks: new PostgresMarks(pools[1]!) }),
  ]);
  [a, b] = await Promise.all([
    startTestServer({ channels: [one.channel] }),
    startTestServer({ channels: [two.channel] }),
  ]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all([one?.close(), two?.close()]);
  await Promise.all(pools.map((p) => p.close()));
  await database?.drop();
});

describe('email links across replicas', () => {
  it('refuses on a second replica a link the first one took', async () => {
    const { request } = await a.gateway.request({
      toolName: 'deploy_service',
      toolArgs: { service: 'billing' },
      channels: [{ type: 'email', target: 'ops@example.test' }],
    });
    await eventually(async () => expect((await a.store.messages(request.id))[0]?.status).toBe('sent'));
    const [approve, deny] = one.mailFor(request).links;
    expect((await one.follow(a, approve!)).result?.status).toBe(200);
    // The second replica verifies the link (same key) and finds it spent in the database before anything else.
    const replay = await two.follow(b, deny!, { openedEarlier: true });
    expect(replay.result).toMatchObject({ status: 410, text: expect.stringContaining('This link was already used') });
    expect(await a.gateway.get(request.id)).toMatchObject({
      status: 'approved',
      respondedBy: 'email:ops@example.test',
    });
  });

  it('lets exactly one of many replicas spend a link at once', async () => {
    const replicas = pools.flatMap((pool) => [
      new UsedLinks(new PostgresMarks(pool)),
      new UsedLinks(new PostgresMarks(pool)),
    ]);
    const now = Date.now();
    const wins = await Promise.all(
      replicas.map((used) => used.spend('req-race', 'ops@example.test', now + 60_000, now)),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await replicas[3]!.spent('req-race', 'ops@example.test', now)).toBe(true);
  });
});
