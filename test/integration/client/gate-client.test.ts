/**
 * GateClient against an in-process gateway (real SQLite, real HTTP on 127.0.0.1): every method, the problem+json
 * errors, configuration from the environment, and retrying through transport failures.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Backoff } from '../../../src/client/backoff.js';
import { GateClientError } from '../../../src/client/errors.js';
import { GateClient } from '../../../src/client/gate-client.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let client: GateClient;

beforeEach(async () => {
  server = await startTestServer();
  client = new GateClient({ url: server.url, token: server.token });
});
afterEach(async () => {
  await server.close();
});

async function rejection(promise: Promise<unknown>): Promise<GateClientError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GateClientError);
  return error as GateClientError;
}

describe('GateClient', () => {
  it('files, waits for and reads a decided request; requestAndWait does both', async () => {
    const filed = await client.request({ tool_name: 'pay_invoice', tool_args: { amount: 120 }, session_id: 's' });
    expect(filed).toMatchObject({
      status: 'pending',
      tool_name: 'pay_invoice',
      tool_args: { amount: 120 },
      allowed: null,
    });
    const waiting = client.wait(filed.id);
    await client.decide(filed.id, { decision: 'approve', approver: 'web:alice', reason: 'ok' });
    expect(await waiting).toMatchObject({
      id: filed.id,
      status: 'approved',
      allowed: true,
      responded_by: 'web:alice',
      reason: 'ok',
    });
    expect((await client.get(filed.id)).status).toBe('approved');

    const both = client.requestAndWait({ tool_name: 'deploy' });
    const pending = await waitForPending(server, 'deploy');
    await client.decide(pending, { decision: 'deny', approver: 'web:bob' });
    expect(await both).toMatchObject({ status: 'denied', allowed: false });
  });

  it('returns the request as last seen when timeoutMs runs out', async () => {
    const filed = await client.request({ tool_name: 'slow' });
    expect(await client.wait(filed.id, { timeoutMs: 200 })).toMatchObject({ id: filed.id, status: 'pending' });
  });

  it('re-attaches through the idempotency key, and cancels', async () => {
    const a = await client.request({ tool_name: 't', tool_args: { x: 1 }, idempotency_key: 'k-1' });
    const b = await client.request({ tool_name: 't', tool_args: { x: 1 }, idempotency_key: 'k-1' });
    expect(b.id).toBe(a.id);
    expect(await client.cancel(a.id, { reason: 'not needed' })).toMatchObject({
      status: 'cancelled',
      reason: 'not needed',
      allowed: false,
    });
    expect((await client.events(a.id)).map((e) => e.type)).toEqual(expect.arrayContaining(['created', 'cancelled']));
  });

  it('throws GateClientError carrying the problem document', async () => {
    const bad = await rejection(client.request({ tool_name: '', tool_args: {} }));
    expect(bad).toMatchObject({ status: 400, code: 'tollgate_validation_error', retryable: false });
    expect(bad.problem?.errors?.[0]?.path).toBe('tool_name');

    await client.request({ tool_name: 't', tool_args: { x: 1 }, idempotency_key: 'k-2' });
    const conflict = await rejection(client.request({ tool_name: 't', tool_args: { x: 2 }, idempotency_key: 'k-2' }));
    expect(conflict).toMatchObject({ status: 409, code: 'tollgate_conflict' });
    expect(conflict.message).toMatch(/idempotency_key "k-2"/);

    const missing = await rejection(client.wait('00000000-0000-7000-8000-000000000000'));
    expect(missing).toMatchObject({ status: 404, code: 'tollgate_not_found' });

    const unauthorized = await rejection(
      new GateClient({ url: server.url, token: 'wrong' }).get('00000000-0000-7000-8000-000000000000'),
    );
    expect(unauthorized).toMatchObject({ status: 401, retryable: false });
  });

  it('reads TOLLGATE_URL and TOLLGATE_TOKEN, and refuses to start without a token or with a bad URL', async () => {
    const fromEnv = new GateClient({ env: { TOLLGATE_URL: `${server.url}/`, TOLLGATE_TOKEN: server.token } });
    expect(fromEnv.url).toBe(server.url);
    expect((await fromEnv.request({ tool_name: 'env' })).status).toBe('pending');
    expect(() => new GateClient({ env: { TOLLGATE_URL: server.url } })).toThrow(/TOLLGATE_TOKEN/);
    const config = (() => {
      try {
        new GateClient({ env: { TOLLGATE_URL: 'ftp://x', TOLLGATE_TOKEN: 't' } });
      } catch (e) {
        return e as GateClientError;
      }
    })();
    expect(config).toMatchObject({ code: 'client_config', retryable: false });
  });

  it('waits through network failures and 503s with backoff, and reports each retry', async () => {
    const filed = await client.request({ tool_name: 'flaky' });
    let calls = 0;
    const faults = [
      () =>
        Promise.reject(
          new TypeError('fetch failed', {
            cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
          }),
        ),
      () => Promise.resolve(new Response('{"detail":"restarting"}', { status: 503 })),
    ];
    const retries: string[] = [];
    const flaky = new GateClient({
      url: server.url,
      token: server.token,
      backoff: { initialMs: 5, maxMs: 20 },
      onRetry: ({ error }) => retries.push(`${error.status}:${error.code}`),
      fetch: (input, init) => faults[calls++]?.() ?? fetch(input, init),
    });
    const waiting = flaky.wait(filed.id);
    await client.decide(filed.id, { decision: 'approve', approver: 'web:alice' });
    expect(await waiting).toMatchObject({ status: 'approved' });
    expect(retries).toEqual(['0:network', '503:http_503']);
  });

  it('retries filing only when an idempotency key makes it safe', async () => {
    let failures = 0;
    const once = new GateClient({
      url: server.url,
      token: server.token,
      backoff: { initialMs: 5 },
      fetch: (input, init) => (failures++ === 0 ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init)),
    });
    expect(await rejection(once.request({ tool_name: 'no-key' }))).toMatchObject({
      status: 0,
      code: 'network',
      retryable: true,
    });
    failures = 0;
    expect((await once.request({ tool_name: 'keyed', idempotency_key: 'k-3' })).status).toBe('pending');
  });

  it('gives up waiting on an unreachable gateway when the time runs out, with the network error', async () => {
    const down = new GateClient({ url: 'http://127.0.0.1:9', token: 't', backoff: { initialMs: 5, maxMs: 10 } });
    const error = await rejection(down.wait('00000000-0000-7000-8000-000000000000', { timeoutMs: 100 }));
    expect(error).toMatchObject({ status: 0, code: 'network' });
    expect(error.message).toMatch(/cannot reach the gateway at http:\/\/127.0.0.1:9/);
  });
});

describe('Backoff', () => {
  it('grows by the factor up to the cap, with jitter between half and all of the step, and starts over on reset', () => {
    const top = new Backoff({ initialMs: 100, maxMs: 500 }, () => 1);
    expect([top.next(), top.next(), top.next(), top.next(), top.next()]).toEqual([100, 200, 400, 500, 500]);
    const bottom = new Backoff({ initialMs: 100, maxMs: 500 }, () => 0);
    expect([bottom.next(), bottom.next()]).toEqual([50, 100]);
    top.reset();
    expect(top.next()).toBe(100);
  });
});

async function waitForPending(s: TestServer, toolName: string): Promise<string> {
  return eventually(async () => {
    const { items } = (await (await s.api(`/v1/requests?status=pending&tool_name=${toolName}`)).json()) as {
      items: { id: string }[];
    };
    if (!items[0]) throw new Error(`no pending ${toolName} yet`);
    return items[0].id;
  });
}
