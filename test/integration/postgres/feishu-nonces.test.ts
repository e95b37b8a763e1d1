/**
 * Feishu replay nonces shared through PostgreSQL: a signed callback accepted by one replica is refused when the same
 * nonce is sent to another (each replica has its own in-process cache; only the database is shared).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeishuChannel } from '../../../channels/feishu/index.js';
import { openPostgres, type OpenPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresMarks } from '../../../src/stores/postgres/marks.js';
import { makeFeishuHarness, type FeishuHarness } from '../../fakes/feishu/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from './fresh-database.js';

process.env.NO_PROXY = '127.0.0.1';

let database: FreshDatabase;
let pools: OpenPostgres[] = [];
let harness: FeishuHarness;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
  pools = [openPostgres(database.url, { poolSize: 2 }), openPostgres(database.url, { poolSize: 2 })];
  harness = await makeFeishuHarness({ marks: new PostgresMarks(pools[0]!) });
  const { secrets } = harness;
  const second = new FeishuChannel({
    appId: secrets.appId,
    appSecret: secrets.appSecret,
    domain: harness.fake.url,
    verificationToken: secrets.verificationToken,
    encryptKey: secrets.encryptKey,
    mode: 'webhook',
    language: 'en',
    replayWindowS: 300,
    requestTimeoutMs: 5000,
    marks: new PostgresMarks(pools[1]!),
  });
  [a, b] = await Promise.all([
    startTestServer({ channels: [harness.channel] }),
    startTestServer({ channels: [second] }),
  ]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await harness?.close();
  await Promise.all(pools.map((p) => p.close()));
  await database?.drop();
});

describe('feishu nonces across replicas', () => {
  it('refuses on a second replica a callback nonce the first one accepted', async () => {
    const { request } = await a.gateway.request({
      toolName: 'deploy_service',
      toolArgs: { service: 'billing' },
      channels: [{ type: 'feishu', target: 'oc_ops' }],
    });
    await eventually(async () => expect((await a.store.messages(request.id))[0]?.status).toBe('sent'));

    const first = await harness.tapAnswer(a, request, 'approve', 'ou_alice', { sign: { nonce: 'n-shared-1' } });
    expect(first.status).toBe(200);
    const replay = await harness.tapAnswer(b, request, 'deny', 'ou_mallory', { sign: { nonce: 'n-shared-1' } });
    expect(replay.status).toBe(401);
    expect(replay.body?.detail).toContain('nonce already used');
    // A fresh nonce passes verification on the second replica (which does not hold this request: a toast, not a 401).
    const fresh = await harness.tapAnswer(b, request, 'deny', 'ou_mallory', { sign: { nonce: 'n-fresh-2' } });
    expect(fresh.status).toBe(200);
    expect(await a.gateway.get(request.id)).toMatchObject({ status: 'approved', respondedBy: 'feishu:ou_alice' });
  });
});
