/**
 * `POST /v1/requests/verdicts`: one server-sent event stream with the verdicts of many requests — at once for the ones
 * already final, as they are decided for the others, at the deadline for ones nobody decides (the stream's own read
 * expires the row, with no scheduler timer behind it) — refusing ids the token may not read as a single read would,
 * and letting go of its subscription when the client leaves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LocalChangeFeed, type RequestChange } from '../../../src/lifecycle/change-feed.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { sseEvents } from '../../../src/client/verdicts.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** A feed that counts its subscribers, to see a stream let go of its subscription. */
class CountingFeed extends LocalChangeFeed {
  subscribers = 0;

  override subscribe(listener: (change: RequestChange) => void): () => void {
    this.subscribers++;
    const off = super.subscribe(listener);
    return () => {
      this.subscribers--;
      off();
    };
  }
}

let t: TestServer;

afterEach(async () => {
  await t.close();
});

async function file(body: Record<string, unknown> = {}, token = t.token): Promise<ApiRequest> {
  const res = await t.api('/v1/requests', {
    body: { tool_name: 'deploy', ...body },
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as ApiRequest;
}

function open(ids: unknown, token = t.token, signal?: AbortSignal): Promise<Response> {
  return fetch(`${t.url}/v1/requests/verdicts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(ids === undefined ? {} : { ids }),
    signal,
  });
}

/** Every verdict of a stream, in order, until it ends. */
async function verdictsOf(res: Response): Promise<ApiRequest[]> {
  const out: ApiRequest[] = [];
  for await (const event of sseEvents(res.body!))
    if (event.event === 'verdict') out.push(JSON.parse(event.data) as ApiRequest);
  return out;
}

const decide = (id: string, decision = 'approve') =>
  t.api(`/v1/requests/${id}/decision`, { body: { decision, approver: 'web:alice' } });

describe('POST /v1/requests/verdicts', () => {
  it('sends the verdicts of requests already final at once and ends', async () => {
    t = await startTestServer();
    const a = await file();
    const b = await file();
    await decide(a.id);
    await decide(b.id, 'deny');
    const res = await open([a.id, b.id.toUpperCase(), a.id]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const got = await verdictsOf(res);
    expect(got.map((r) => [r.id, r.status]).sort()).toEqual(
      [
        [a.id, 'approved'],
        [b.id, 'denied'],
      ].sort(),
    );
  });

  it('sends each verdict once as it is decided, over one subscription, and ends after the last', async () => {
    const feed = new CountingFeed();
    t = await startTestServer({ feed });
    const before = feed.subscribers;
    const requests = [await file(), await file(), await file()];
    const res = await open(requests.map((r) => r.id));
    expect(res.status).toBe(200);
    expect(feed.subscribers).toBe(before + 1);
    const reading = verdictsOf(res);
    await decide(requests[1]!.id);
    await t.api(`/v1/requests/${requests[0]!.id}/cancel`, { body: {} });
    await decide(requests[2]!.id, 'deny');
    const got = await reading;
    expect(got.map((r) => [r.id, r.status])).toEqual([
      [requests[1]!.id, 'approved'],
      [requests[0]!.id, 'cancelled'],
      [requests[2]!.id, 'denied'],
    ]);
    await eventually(() => expect(feed.subscribers).toBe(before));
  });

  it('shares one subscription among all open streams, and sends a request awaited by two streams to both', async () => {
    const feed = new CountingFeed();
    t = await startTestServer({ feed });
    const before = feed.subscribers;
    const [shared, onlyFirst, onlySecond] = [await file(), await file(), await file()];
    const first = await open([shared.id, onlyFirst.id]);
    const second = await open([onlySecond.id, shared.id]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(feed.subscribers).toBe(before + 1);
    const [readingFirst, readingSecond] = [verdictsOf(first), verdictsOf(second)];
    await decide(shared.id);
    await decide(onlyFirst.id, 'deny');
    expect((await readingFirst).map((r) => [r.id, r.status])).toEqual([
      [shared.id, 'approved'],
      [onlyFirst.id, 'denied'],
    ]);
    // The first stream has ended; the second still holds the subscription until its last verdict.
    expect(feed.subscribers).toBe(before + 1);
    await t.api(`/v1/requests/${onlySecond.id}/cancel`, { body: {} });
    expect((await readingSecond).map((r) => [r.id, r.status])).toEqual([
      [shared.id, 'approved'],
      [onlySecond.id, 'cancelled'],
    ]);
    await eventually(() => expect(feed.subscribers).toBe(before));
  });

  it('hears a change made in another process over the feed, and reads the row back', async () => {
    const feed = new CountingFeed();
    t = await startTestServer({ feed });
    const pending = await file();
    const res = await open([pending.id]);
    const reading = verdictsOf(res);
    // Written behind this gateway's back, as another replica would, then announced on the feed only.
    const decided = await t.store.decide(pending.id, {
      decision: 'approve',
      actor: 'web:alice',
      via: 'web',
      reason: null,
      option: null,
      approvedArgs: null,
      at: new Date(),
    });
    expect(decided.kind).toBe('final');
    await feed.publish({ requestId: pending.id, status: 'approved', kind: 'changed' });
    expect((await reading).map((r) => [r.id, r.status])).toEqual([[pending.id, 'approved']]);
  });

  it('expires a request nobody decides at its deadline by reading it, with no scheduler timer to do it', async () => {
    const clock = new ManualClock(Date.parse('2026-11-25T10:00:00Z'));
    // The scheduler's timers run on a clock that never moves: only the stream's own deadline read can expire the row.
    t = await startTestServer({
      clock,
      scheduler: new InProcessScheduler({ clock: new ManualClock(), sweepEveryMs: 0 }),
    });
    const soon = await file({ timeout_s: 10 });
    const later = await file({ timeout_s: 30 });
    const res = await open([soon.id, later.id]);
    const reading = verdictsOf(res);
    await clock.advance(10_000);
    await eventually(async () => expect((await t.store.get(soon.id))?.status).toBe('expired'));
    expect((await t.store.get(later.id))?.status).toBe('pending');
    await clock.advance(20_000);
    const got = await reading;
    expect(got.map((r) => [r.id, r.status])).toEqual([
      [soon.id, 'expired'],
      [later.id, 'expired'],
    ]);
  });

  it('opens on a request past its deadline whose timer never fired as expired, read in one batch with the others', async () => {
    const clock = new ManualClock(Date.parse('2026-11-25T10:00:00Z'));
    t = await startTestServer({
      clock,
      scheduler: new InProcessScheduler({ clock: new ManualClock(), sweepEveryMs: 0 }),
    });
    const overdue = await file({ timeout_s: 10 });
    const decided = await file({ timeout_s: 600 });
    expect((await decide(decided.id, 'deny')).status).toBe(200);
    await clock.advance(10_000);
    expect((await t.store.get(overdue.id))?.status).toBe('pending'); // nobody expired it
    // The clock does not move again: only the opening read can expire the row.
    const got = await verdictsOf(await open([overdue.id, decided.id]));
    expect(got.map((r) => [r.id, r.status]).sort()).toEqual(
      [
        [overdue.id, 'expired'],
        [decided.id, 'denied'],
      ].sort(),
    );
  });

  it('refuses the whole call with the 404 of a single read for an id the token did not file, or an unknown one', async () => {
    t = await startTestServer();
    const mine = (await (
      await t.api('/v1/tokens', { body: { name: 'agent-a', scopes: ['request:create', 'request:read'] } })
    ).json()) as { secret: string };
    const other = (await (
      await t.api('/v1/tokens', { body: { name: 'agent-b', scopes: ['request:create', 'request:read'] } })
    ).json()) as { secret: string };
    const own = await file({}, mine.secret);
    const theirs = await file({}, other.secret);
    const refused = await open([own.id, theirs.id], mine.secret);
    expect(refused.status).toBe(404);
    const single = await t.api(`/v1/requests/${theirs.id}`, { headers: { authorization: `Bearer ${mine.secret}` } });
    expect(single.status).toBe(404);
    expect(await refused.json()).toMatchObject({
      status: 404,
      detail: ((await single.json()) as { detail: string }).detail,
    });
    const unknown = await open([own.id, '00000000-0000-4000-8000-000000000000'], mine.secret);
    expect(unknown.status).toBe(404);
    const creator = (await (
      await t.api('/v1/tokens', { body: { name: 'creator', scopes: ['request:create'] } })
    ).json()) as { secret: string };
    expect((await open([own.id], creator.secret)).status).toBe(403);
    await decide(own.id);
    expect((await verdictsOf(await open([own.id], mine.secret))).map((r) => r.status)).toEqual(['approved']);
  });

  it('reads its ids a batch at a time: every verdict of 250 ids, and the 404 of an unknown id in the last batch', async () => {
    t = await startTestServer();
    const filed: ApiRequest[] = [];
    for (let i = 0; i < 250; i++) filed.push(await file());
    const ids = filed.map((r) => r.id);
    // Through the gateway, not the API: 250 decisions over HTTP would meet the decision rate limit.
    const settle = async (id: string, decision: 'approve' | 'deny') =>
      expect((await t.gateway.decide({ requestId: id, decision, actor: { channel: 'api', userId: 'ops' } })).ok).toBe(
        true,
      );
    for (const id of ids.slice(0, 200)) await settle(id, 'deny');
    const res = await open(ids);
    expect(res.status).toBe(200);
    const got = verdictsOf(res);
    for (const id of ids.slice(200)) await settle(id, 'approve');
    const verdicts = await got;
    expect(verdicts.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(
      verdicts
        .filter((r) => r.status === 'approved')
        .map((r) => r.id)
        .sort(),
    ).toEqual(ids.slice(200).sort());
    const unknown = await open([...ids.slice(0, 230), '00000000-0000-4000-8000-000000000000']);
    expect(unknown.status).toBe(404);
  });

  it('answers a bad body with problem+json naming the field', async () => {
    t = await startTestServer();
    for (const [body, path] of [
      [undefined, 'ids'],
      [[], 'ids'],
      [['not-an-id'], 'ids[0]'],
      [Array.from({ length: 5001 }, () => '00000000-0000-4000-8000-000000000000'), 'ids'],
    ] as const) {
      const res = await open(body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(await res.json()).toMatchObject({ status: 400, errors: [expect.objectContaining({ path })] });
    }
    const extra = await fetch(`${t.url}/v1/requests/verdicts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ids: [], colour: 'red' }),
    });
    expect(await extra.json()).toMatchObject({
      status: 400,
      errors: expect.arrayContaining([expect.objectContaining({ message: expect.stringMatching(/colour/) })]),
    });
  });

  it('lets go of its subscription when the client goes away', async () => {
    const feed = new CountingFeed();
    t = await startTestServer({ feed });
    const before = feed.subscribers;
    const pending = await file();
    const leaving = new AbortController();
    const res = await open([pending.id], t.token, leaving.signal);
    expect(res.status).toBe(200);
    expect(feed.subscribers).toBe(before + 1);
    leaving.abort();
    await eventually(() => expect(feed.subscribers).toBe(before));
    // Deciding afterwards writes to nobody and breaks nothing.
    expect((await decide(pending.id)).status).toBe(200);
  });
});
