/**
 * Web Push end to end, as one suite run on SQLite and on PostgreSQL: a person signed in to the inbox subscribes a
 * device (keys made as a browser makes them), a request filed for them arrives at a fake push service on 127.0.0.1
 * that checks the VAPID JWT against the gateway's key and decrypts the message; the notification's action token
 * decides once as that person; a replayed or expired token changes nothing; a decision elsewhere replaces the
 * notification; a device its push service calls gone (404/410) is removed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { FakePushService, type FakeDevice } from '../../fakes/push/fake-push-service.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { formValue, WebClient } from '../web/web-client.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef0';
const POLICY = `
people:
  - { id: alice, accounts: { web: alice } }
  - { id: bob, accounts: { web: bob } }
policies:
  - name: slow
    match: { tool: close_account }
    approvers: ["person:bob"]
    timeout_s: 3600
    escalate:
      - { after_s: 60, approvers: ["person:alice"] }
`;

/** What a suite run needs of its database: a fresh one per test (a file path or a PostgreSQL URL), dropped after. */
export interface PushSuiteDatabase {
  fresh(): Promise<{ dbPath?: string; drop(): Promise<void> }>;
  /**
   * Whether a `ManualClock` moves request deadlines: on SQLite it does; PostgreSQL judges deadlines by its own `now()`
   * (replicas with skewed clocks agree), so there the expiry case is left to SQLite — the update job it checks is the
   * same code on both stores.
   */
  manualDeadlines: boolean;
}

/** Registers the suite for one database. */
export function pushSuite(name: string, database: PushSuiteDatabase): void {
  describe(`web push (${name})`, () => {
    let server: TestServer;
    let push: FakePushService;
    let clock: ManualClock;
    let drop: () => Promise<void>;
    let alice: WebClient;

    beforeEach(async () => {
      const db = await database.fresh();
      drop = db.drop;
      push = await new FakePushService().start();
      // Near real time: spent tokens are marks the database prunes by its own clock.
      clock = new ManualClock(Date.now());
      const web = createWebChannel({
        users: [
          { name: 'alice', token: ALICE },
          { name: 'bob', token: BOB },
        ],
      });
      server = await startTestServer({
        clock,
        channels: [web],
        policy: POLICY,
        // The fake push service is on 127.0.0.1, which the outbound check refuses unless allowed.
        env: { TOLLGATE_OUTBOUND_ALLOW: '127.0.0.1' },
        ...(db.dbPath ? { dbPath: db.dbPath } : {}),
      });
      push.expectedKey = (
        (await (await fetch(`${server.url}/ui/push/key`)).json()) as { public_key: string }
      ).public_key;
      alice = new WebClient(server.url);
      await alice.signIn('alice', ALICE);
    });

    afterEach(async () => {
      await server?.close();
      await push?.stop();
      await drop?.();
    });

    async function subscribe(
      client: WebClient,
      device: FakeDevice | Record<string, unknown>,
    ): Promise<{ status: number; body: Record<string, unknown> }> {
      const csrf = formValue((await client.request('/ui')).text, '_csrf');
      const res = await fetch(`${server.url}/ui/push/subscriptions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-csrf-token': csrf,
          origin: server.url,
          cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
        body: JSON.stringify('subscription' in device ? device.subscription : device),
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
    }

    /** Files a request waiting for alice and lets the delivery job run; resolves with its id. */
    async function fileForAlice(
      toolArgs: Record<string, unknown> = { amount: 120, payee: 'ACME' },
      extra: Record<string, unknown> = {},
    ): Promise<string> {
      const res = await server.api('/v1/requests', {
        body: { tool_name: 'pay_invoice', tool_args: toolArgs, approvers: ['person:alice'], timeout_s: 3600, ...extra },
      });
      expect(res.status).toBe(201);
      await clock.advance(0);
      return ((await res.json()) as { id: string }).id;
    }

    const act = (body: Record<string, unknown>) =>
      fetch(`${server.url}/ui/push/act`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    it('pushes a request waiting for a person to their device: VAPID-signed with the gateway key, encrypted, masked, within 3 KB', async () => {
      const device = push.device();
      expect((await subscribe(alice, device)).status).toBe(201);
      const id = await fileForAlice({ amount: 120, payee: 'ACME', api_key: 'sk-live-0123456789abcdefghij' });
      await push.waitFor(1);
      expect(push.problems).toEqual([]);
      const [message] = push.messagesOf(device);
      expect(message!.vapid.key).toBe(push.expectedKey);
      expect(message!.headers).toMatchObject({
        urgency: 'high',
        contentEncoding: 'aes128gcm',
        topic: id.replaceAll('-', ''),
      });
      expect(message!.headers.ttl).toBeGreaterThan(3500);
      expect(message!.headers.ttl).toBeLessThanOrEqual(3600);
      const payload = message!.payload;
      expect(payload).toMatchObject({
        request_id: id,
        title: 'Approval needed: pay_invoice',
        actions: ['approve', 'deny'],
        url: `${server.url}/ui/requests/${id}`,
        status: 'pending',
      });
      expect(typeof payload.action_token).toBe('string');
      expect(payload.body).toContain('payee: ACME');
      expect(JSON.stringify(payload)).not.toContain('sk-live-0123456789abcdefghij');
      expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(3072);
    });

    it('Approve decides once as that person through the gateway (responded_via push); a replay changes nothing', async () => {
      const device = push.device();
      await subscribe(alice, device);
      const id = await fileForAlice();
      await push.waitFor(1);
      const token = push.messagesOf(device)[0]!.payload.action_token as string;
      const first = await act({ action_token: token, action: 'approve' });
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ ok: true, status: 'approved' });
      const row = (await (await server.api(`/v1/requests/${id}`)).json()) as Record<string, unknown>;
      expect(row).toMatchObject({ status: 'approved', responded_by: 'web:alice', responded_via: 'push' });
      const events = (await server.store.events(id)).length;
      const replay = await act({ action_token: token, action: 'deny' });
      expect(replay.status).toBe(409);
      expect(await replay.json()).toMatchObject({ ok: false, code: 'used' });
      expect((await server.store.get(id))!.status).toBe('approved');
      expect((await server.store.events(id)).length).toBe(events);
    });

    it('an expired action token changes nothing', async () => {
      const device = push.device();
      await subscribe(alice, device);
      const id = await fileForAlice();
      await push.waitFor(1);
      const token = push.messagesOf(device)[0]!.payload.action_token as string;
      await clock.advance(16 * 60_000);
      const late = await act({ action_token: token, action: 'approve' });
      expect(late.status).toBe(410);
      expect(await late.json()).toMatchObject({ code: 'expired' });
      expect((await server.store.get(id))!.status).toBe('pending');
      expect((await server.store.events(id)).some((e) => e.type === 'approved' || e.type === 'decision_rejected')).toBe(
        false,
      );
    });

    it('a forged or tampered token changes nothing, and bad input names the field', async () => {
      const device = push.device();
      await subscribe(alice, device);
      const id = await fileForAlice();
      await push.waitFor(1);
      const token = push.messagesOf(device)[0]!.payload.action_token as string;
      const [payload, signature] = token.split('.') as [string, string];
      const fields = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
      fields[3] = 'bob';
      const tampered = `${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${signature}`;
      expect((await act({ action_token: tampered, action: 'approve' })).status).toBe(401);
      const noAction = await act({ action_token: token, action: 'maybe' });
      expect(noAction.status).toBe(400);
      expect(JSON.stringify(await noAction.json())).toContain('action');
      expect((await server.store.get(id))!.status).toBe('pending');
    });

    it('a decision made elsewhere replaces the notification with the outcome (same request, no actions)', async () => {
      const device = push.device();
      await subscribe(alice, device);
      const id = await fileForAlice();
      await push.waitFor(1);
      const decided = await server.api(`/v1/requests/${id}/decision`, {
        body: { decision: 'deny', approver: 'web:alice', reason: 'not this month' },
      });
      expect(decided.status).toBe(200);
      await clock.advance(0);
      await push.waitFor(2);
      const outcome = push.messagesOf(device)[1]!;
      expect(outcome.payload).toMatchObject({
        request_id: id,
        title: 'Denied: pay_invoice',
        actions: [],
        status: 'denied',
      });
      expect(outcome.payload.action_token).toBeUndefined();
      expect(outcome.headers.topic).toBe(id.replaceAll('-', ''));
      expect(push.problems).toEqual([]);
    });

    it('pushes to a person an escalation adds, when it adds them', async () => {
      const device = push.device();
      await subscribe(alice, device);
      const res = await server.api('/v1/requests', {
        body: { tool_name: 'close_account', tool_args: { account: 'ACME-1' } },
      });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      await clock.advance(0);
      expect(push.messagesOf(device)).toEqual([]);
      await clock.advance(60_000);
      // The escalation enqueues the new card's delivery on the same clock: let it run once the step is recorded.
      await expect
        .poll(async () => {
          await clock.advance(0);
          return push.messagesOf(device).length;
        })
        .toBe(1);
      expect(push.messagesOf(device)[0]!.payload).toMatchObject({
        request_id: id,
        title: 'Approval needed: close_account',
        actions: ['approve', 'deny'],
      });
      const answer = await act({ action_token: push.messagesOf(device)[0]!.payload.action_token, action: 'approve' });
      expect(answer.status).toBe(200);
      expect((await server.store.get(id))!).toMatchObject({ status: 'approved', respondedBy: 'web:alice' });
    });

    if (database.manualDeadlines) {
      it('an expired request replaces the notification with its outcome too', async () => {
        const device = push.device();
        await subscribe(alice, device);
        const id = await fileForAlice({ amount: 1 }, { timeout_s: 60 });
        await push.waitFor(1);
        expect(push.messagesOf(device)[0]!.headers.ttl).toBeLessThanOrEqual(60);
        await clock.advance(61_000);
        await expect.poll(async () => (await server.store.get(id))!.status).toBe('expired');
        // The expiry enqueues the outcome's delivery on the same clock after the row reads expired, sometimes after
        // one advance(0) has settled (seen when this test ran first in its process): advance until it has run.
        await expect
          .poll(async () => {
            await clock.advance(0);
            return push.messagesOf(device).length;
          })
          .toBe(2);
        expect(push.messagesOf(device)[1]!.payload).toMatchObject({
          request_id: id,
          title: 'Expired: pay_invoice',
          status: 'expired',
          actions: [],
        });
      });
    }

    for (const status of [404, 410]) {
      it(`removes a subscription its push service answers ${status}`, async () => {
        const device = push.device();
        await subscribe(alice, device);
        device.status = status;
        await fileForAlice();
        await push.waitFor(1);
        // A second device subscribes; the next request reaches it, and no longer the one that is gone.
        const phone = push.device();
        await subscribe(alice, phone);
        await fileForAlice();
        await push.waitFor(2);
        expect(push.messagesOf(phone)).toHaveLength(1);
        expect(push.messagesOf(device)).toHaveLength(1);
      });
    }

    it('refuses a non-https endpoint naming the field, and a subscription without a session or CSRF token', async () => {
      const bad = await subscribe(alice, {
        endpoint: 'http://push.example.com/x',
        keys: push.device().subscription.keys,
      });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('endpoint');
      const badKey = await subscribe(alice, {
        endpoint: 'https://push.example.com/x',
        keys: { p256dh: 'AAAA', auth: 'AAAA' },
      });
      expect(badKey.status).toBe(400);
      expect(JSON.stringify(badKey.body)).toContain('keys.p256dh');
      const anonymous = await fetch(`${server.url}/ui/push/subscriptions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(push.device().subscription),
      });
      expect(anonymous.status).toBe(401);
      const cookie = [...alice.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const noCsrf = await fetch(`${server.url}/ui/push/subscriptions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, origin: server.url },
        body: JSON.stringify(push.device().subscription),
      });
      expect(noCsrf.status).toBe(403);
    });

    it.each([
      'https://169.254.169.254/latest/meta-data/',
      'https://10.1.2.3/x',
      'https://[::ffff:a9fe:a9fe]/',
      'https://0.0.0.0:22/',
      'http://127.0.0.2:8080/x',
    ])(
      'refuses the endpoint %s (private, metadata, mapped, unspecified) with a 400 naming endpoint',
      async (endpoint) => {
        const res = await subscribe(alice, { endpoint, keys: push.device().subscription.keys });
        expect(res.status).toBe(400);
        expect(JSON.stringify(res.body)).toContain('endpoint');
      },
    );

    it("re-subscribing another person's endpoint does not take it over: alice still gets her pushes", async () => {
      const device = push.device();
      expect((await subscribe(alice, device)).status).toBe(201);
      const bob = new WebClient(server.url);
      await bob.signIn('bob', BOB);
      const takeover = await subscribe(bob, device);
      expect(takeover.status).toBe(409);
      const id = await fileForAlice();
      await push.waitFor(1);
      expect(push.messagesOf(device).map((m) => m.payload.request_id)).toEqual([id]);
      // alice renewing her own subscription still works (same endpoint, same person).
      expect((await subscribe(alice, device)).status).toBe(201);
    });

    it('subscribes through /v1/push/subscriptions for a decide token bound to a person, and unsubscribes by endpoint', async () => {
      const created = await server.api('/v1/tokens', {
        body: { name: 'alice-phone', scopes: ['request:decide'], as: 'person:alice' },
      });
      expect(created.status).toBe(201);
      const { secret: token } = (await created.json()) as { secret: string };
      const device = push.device();
      const asAlice = (method: string, body: unknown) =>
        fetch(`${server.url}/v1/push/subscriptions`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await asAlice('POST', device.subscription)).status).toBe(201);
      expect((await server.api('/v1/push/subscriptions', { body: push.device().subscription })).status).toBe(403);
      await fileForAlice();
      await push.waitFor(1);
      expect(push.messagesOf(device)).toHaveLength(1);
      expect((await asAlice('DELETE', { endpoint: device.subscription.endpoint })).status).toBe(204);
      expect((await asAlice('DELETE', { endpoint: device.subscription.endpoint })).status).toBe(404);
      const phone = push.device();
      expect((await asAlice('POST', phone.subscription)).status).toBe(201);
      await fileForAlice();
      await push.waitFor(2);
      expect(push.messagesOf(phone)).toHaveLength(1);
      expect(push.messagesOf(device)).toHaveLength(1);
    });

    it('Approve cannot approve a request the person filed themselves (self-approval holds through push)', async () => {
      const created = await server.api('/v1/tokens', {
        body: { name: 'alice-agent', scopes: ['request:create'], person: 'alice' },
      });
      expect(created.status).toBe(201);
      const { secret: token } = (await created.json()) as { secret: string };
      const device = push.device();
      await subscribe(alice, device);
      const res = await fetch(`${server.url}/v1/requests`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tool_name: 'pay_invoice', approvers: ['person:alice', 'person:bob'], timeout_s: 3600 }),
      });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      await clock.advance(0);
      await push.waitFor(1);
      const answer = await act({ action_token: push.messagesOf(device)[0]!.payload.action_token, action: 'approve' });
      expect(answer.status).toBe(403);
      expect(await answer.json()).toMatchObject({ ok: false, code: 'self_approval' });
      expect((await server.store.get(id))!.status).toBe('pending');
    });
  });
}
