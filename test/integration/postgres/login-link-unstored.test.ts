/**
 * `serve` on PostgreSQL prints a login link only once it is stored. When it cannot be stored, the gateway still comes
 * up and says so, instead of printing a link no replica would accept (or exiting).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';
import { queuePrefix } from '../../helpers/queue-prefix.js';
import { eventually } from '../../helpers/eventually.js';
import { freshDatabase, withClient, type FreshDatabase } from './fresh-database.js';

let database: FreshDatabase;
let gateway: ChildGateway | undefined;

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
  // Where login links live; without it, storing one fails (as it would with the database away for a moment).
  await withClient(database.url, (c) => c.query('DROP TABLE shared_marks'));
});
afterAll(async () => {
  await gateway?.kill('SIGKILL');
  await database?.drop();
});

describe('a login link that cannot be stored', () => {
  it('is not printed; the gateway says why and serves on', async () => {
    gateway = await startChildGateway(database.url, {
      REDIS_URL: 'redis://127.0.0.1:6379',
      TOLLGATE_QUEUE_PREFIX: queuePrefix(),
    });
    await eventually(() => expect(gateway!.output()).toContain('Web inbox: no login link ('));
    expect(gateway.output()).toContain('tollgate login-link');
    expect(gateway.output()).not.toMatch(/ui\/login\?token=/);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });
});
