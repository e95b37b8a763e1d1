/**
 * Two replicas on one PostgreSQL with BullMQ and nothing shared by hand: no `TOLLGATE_WEB_SECRET` (the session key is
 * generated once and kept in the database; so is Web Push's VAPID key), and a request's deadline that holds although the replica holding its
 * expiry timer was killed (the Redis backstop fires seconds later; the row does not wait for it).
 */
import { describe, expect, it } from 'vitest';
import { replicaPair } from './replica-pair.js';
import type { ChildGateway } from '../../helpers/child-gateway.js';
import { eventually } from '../../helpers/eventually.js';
import { WebClient } from '../web/web-client.js';
import { withClient } from './fresh-database.js';

const pair = replicaPair();

/** Runs one query on the test database. */
const query = <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
  withClient(pair.database.url, async (c) => (await c.query(sql, values)).rows as T[]);

async function linkOf(gateway: ChildGateway, on: ChildGateway): Promise<string> {
  return eventually(() => {
    const link = /open (http:\/\/\S+\/ui\/login\?token=\S+) to sign in/.exec(gateway.output())?.[1];
    if (!link) throw new Error(`no login link in:\n${gateway.output()}`);
    return link.replace(gateway.url, on.url);
  });
}

describe('replicas with no shared secret set by hand', () => {
  it('signs in on B with a link A printed, and the session works on A as well', async () => {
    const onB = new WebClient(pair.b.url);
    const inbox = await onB.request(await linkOf(pair.a, pair.b));
    expect(inbox.path).toBe('/ui');
    const onA = new WebClient(pair.a.url);
    onA.cookies.set('tollgate_session', onB.cookies.get('tollgate_session')!);
    const page = await onA.request('/ui', { manual: true });
    expect(page.status).toBe(200);
    expect(page.text).toContain('web:admin');
    expect(pair.a.output()).not.toContain('TOLLGATE_WEB_SECRET is not set');
    // One of each key for the deployment: the session key, Web Push's VAPID and action-token keys, and the verdict
    // key (loaded at start, before anything signs; with no TOLLGATE_SIGNING_KEY_FILE it lives here, and says so).
    expect(await query<{ name: string }>('SELECT name FROM deployment_secrets ORDER BY name')).toEqual([
      { name: 'push_actions' },
      { name: 'vapid' },
      { name: 'verdict_signing' },
      { name: 'web_session' },
    ]);
  });

  it('signs Web Push with one VAPID key on every replica', async () => {
    const keyOf = async (gateway: ChildGateway) =>
      ((await (await fetch(`${gateway.url}/ui/push/key`)).json()) as { public_key: string }).public_key;
    const [a, b] = await Promise.all([keyOf(pair.a), keyOf(pair.b)]);
    expect(Buffer.from(a, 'base64url')).toHaveLength(65);
    expect(b).toBe(a);
  });

  it('refuses an approval on B after the deadline of a request whose timer died with its replica, and expires it', async () => {
    // A third replica files the request and is killed: a and b stay up for the tests that run after this one.
    const doomed = await pair.another();
    const created = await doomed.api('/v1/requests', {
      body: { tool_name: 'pay_invoice', tool_args: { amount: 9 }, timeout_s: 2, approvers: ['web:alice'] },
    });
    expect(created.status).toBe(201);
    const request = (await created.json()) as { id: string; expires_at: string };
    await doomed.kill('SIGKILL');
    // Real time: the replicas are child processes. Past the deadline, well before the Redis backstop (5 s later).
    await eventually(() => expect(Date.now()).toBeGreaterThan(Date.parse(request.expires_at) + 100), 5000, 20);
    const late = await pair.b.api(`/v1/requests/${request.id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice' },
    });
    expect(late.status).toBe(409);
    // Either B's vote finds the deadline passed and expires the row ("expired at …"), or something on B expired the
    // overdue row just before the vote reached it ("already expired": seen in two full runs of the suite on a slower
    // machine; B's timers and its reads of an overdue row expire it too). Both keep the deadline, with the same events
    // below. The late vote's own words are test/integration/core/deadline.test.ts's; PostgreSQL's, store-deadline's.
    expect(((await late.json()) as { detail: string }).detail).toMatch(/expired at|already expired/);
    const row = (await (await pair.b.api(`/v1/requests/${request.id}`)).json()) as { status: string; allowed: boolean };
    expect(row).toMatchObject({ status: 'expired', allowed: false });
    const types = await query<{ type: string }>(
      'SELECT type FROM confirmation_events WHERE request_id = $1 ORDER BY id',
      [request.id],
    );
    expect(types.map((e) => e.type).filter((t) => t !== 'delivered')).toEqual([
      'created',
      'expired',
      'decision_rejected',
    ]);
  });
});
