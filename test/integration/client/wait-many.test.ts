/**
 * `GateClient.waitMany` against in-process gateways (real SQLite, real HTTP): the verdicts of many requests over the
 * verdict stream, in the order asked, split over several streams past 1,000 ids; a timeout answering the rest as
 * they are; refusal of an id the token may not read; and a stream dropped by a gateway restart, reopened on the
 * gateway that comes back without losing the verdicts given while it was down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GateClientError } from '../../../src/client/errors.js';
import { GateClient } from '../../../src/client/gate-client.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const servers: TestServer[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function server(dbPath?: string): Promise<TestServer> {
  const s = await startTestServer(dbPath ? { dbPath } : {});
  servers.push(s);
  return s;
}

const approve = { decision: 'approve', approver: 'web:alice' } as const;

/** Counts the verdict streams a client opens. */
function countingFetch(urlOf: () => string): { fetch: typeof fetch; streams: () => number } {
  let streams = 0;
  return {
    streams: () => streams,
    fetch: (input, init) => {
      const url = new URL(String(input));
      if (url.pathname === '/v1/requests/verdicts') streams++;
      return fetch(`${urlOf()}${url.pathname}${url.search}`, init);
    },
  };
}

describe('GateClient.waitMany', () => {
  it('resolves with every verdict in the order asked, each told once as it arrives', async () => {
    const t = await server();
    const client = new GateClient({ url: t.url, token: t.token });
    const filed = [
      await client.request({ tool_name: 'a' }),
      await client.request({ tool_name: 'b' }),
      await client.request({ tool_name: 'c' }),
    ];
    await client.decide(filed[2]!.id, { decision: 'deny', approver: 'web:alice' });
    const told: string[] = [];
    const waiting = client.waitMany(
      filed.map((r) => r.id),
      { onVerdict: (r) => told.push(r.id) },
    );
    await eventually(() => expect(told).toEqual([filed[2]!.id]));
    await client.decide(filed[0]!.id, approve);
    await client.cancel(filed[1]!.id);
    const got = await waiting;
    expect(got.map((r) => [r.id, r.status])).toEqual([
      [filed[0]!.id, 'approved'],
      [filed[1]!.id, 'cancelled'],
      [filed[2]!.id, 'denied'],
    ]);
    expect(told.sort()).toEqual(filed.map((r) => r.id).sort());
  });

  it('splits more than 1,000 ids over several streams', async () => {
    const t = await server();
    const counting = countingFetch(() => t.url);
    const client = new GateClient({ url: t.url, token: t.token, fetch: counting.fetch });
    const ids: string[] = [];
    for (let i = 0; i < 1001; i++)
      ids.push((await t.gateway.request({ toolName: 'bulk', toolArgs: { i } })).request.id);
    const waiting = client.waitMany(ids);
    await eventually(() => expect(counting.streams()).toBe(2));
    for (const id of ids)
      await t.gateway.decide({ requestId: id, decision: 'approve', actor: { channel: 'web', userId: 'alice' } });
    const got = await waiting;
    expect(got.map((r) => r.id)).toEqual(ids);
    expect(got.every((r) => r.status === 'approved')).toBe(true);
    expect(counting.streams()).toBe(2);
  });

  it('answers the ones still pending as they are when timeoutMs runs out', async () => {
    const t = await server();
    const client = new GateClient({ url: t.url, token: t.token });
    const decided = await client.request({ tool_name: 'a' });
    const slow = await client.request({ tool_name: 'b' });
    await client.decide(decided.id, approve);
    const got = await client.waitMany([decided.id, slow.id], { timeoutMs: 300 });
    expect(got.map((r) => r.status)).toEqual(['approved', 'pending']);
  });

  it('throws the 404 of a single read for an id the token may not read', async () => {
    const t = await server();
    const admin = new GateClient({ url: t.url, token: t.token });
    const reader = await admin.createToken({ name: 'agent-a', scopes: ['request:create', 'request:read'] });
    const theirs = await admin.request({ tool_name: 'not-yours' });
    const client = new GateClient({ url: t.url, token: reader.secret });
    const own = await client.request({ tool_name: 'mine' });
    const error = await client.waitMany([own.id, theirs.id]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GateClientError);
    expect(error).toMatchObject({ status: 404, retryable: false });
  });

  it('reopens a stream a gateway restart dropped, and gets the verdicts given while it was down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-wait-many-'));
    dirs.push(dir);
    const dbPath = join(dir, 'tollgate.db');
    let current = await server(dbPath);
    const counting = countingFetch(() => current.url);
    const retries: string[] = [];
    const client = new GateClient({
      url: current.url,
      token: current.token,
      fetch: counting.fetch,
      backoff: { initialMs: 20, maxMs: 100 },
      onRetry: ({ error }) => retries.push(error.code),
    });
    const filed: ApiRequest[] = [];
    for (const tool of ['a', 'b', 'c']) filed.push(await client.request({ tool_name: tool }));
    const told: string[] = [];
    const waiting = client.waitMany(
      filed.map((r) => r.id),
      { onVerdict: (r) => told.push(r.id) },
    );
    await eventually(() => expect(counting.streams()).toBe(1));
    await client.decide(filed[0]!.id, approve);
    await eventually(() => expect(told).toEqual([filed[0]!.id]));

    // The gateway goes away (its stream with it); a verdict is given straight into the database meanwhile.
    const first = current;
    await first.close();
    servers.splice(servers.indexOf(first), 1);
    current = await server(dbPath);
    await current.gateway.decide({
      requestId: filed[1]!.id,
      decision: 'deny',
      actor: { channel: 'web', userId: 'alice' },
    });
    await eventually(() => expect(told).toContain(filed[1]!.id));
    expect(counting.streams()).toBeGreaterThanOrEqual(2);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    await client.decide(filed[2]!.id, approve);
    const got = await waiting;
    expect(got.map((r) => r.status)).toEqual(['approved', 'denied', 'approved']);
    expect(told).toHaveLength(3);
  });
});
