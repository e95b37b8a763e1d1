/**
 * Connection exhaustion (#18): clients holding many half-sent-header connections must not starve `/healthz` or
 * authenticated calls. Half-sent sockets beyond the caps are shed, a fresh client is still answered, and headers
 * that never finish are timed out quickly.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionLimitsFromEnv, DEFAULT_CONNECTION_LIMITS } from '../../../src/http/connection-limits.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer | null = null;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = null;
});

/** Opens `count` sockets that send half a request and then wait; resolves once all are connected. */
async function halfSent(url: string, count: number): Promise<{ open: () => number }> {
  const { port } = new URL(url);
  const states = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<{ closed: boolean }>((resolve) => {
          const state = { closed: false };
          const socket = connect({ host: '127.0.0.1', port: Number(port) }, () => {
            socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
            resolve(state);
          });
          socket.on('error', () => undefined);
          // Read what the server says (a 408), or the socket never reports its close.
          socket.resume();
          socket.on('close', () => {
            state.closed = true;
            resolve(state);
          });
          sockets.push(socket);
        }),
    ),
  );
  return { open: () => states.filter((s) => !s.closed).length };
}

describe('connection limits', () => {
  it.each([
    ['per address', { TOLLGATE_MAX_CONNECTIONS_PER_ADDRESS: '20' }],
    ['in total', { TOLLGATE_MAX_CONNECTIONS: '20' }],
  ])('sheds half-sent-header sockets beyond the cap %s while /healthz and creates still answer', async (_, env) => {
    server = await startTestServer({ env });
    const flood = await halfSent(server.url, 200);
    // The caps hold: at most 20 of the 200 stay open (the rest were closed as newer ones arrived).
    await eventually(() => expect(flood.open()).toBeLessThanOrEqual(20));
    const started = Date.now();
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const created = await server.api('/v1/requests', {
      method: 'POST',
      body: { tool_name: 'deploy', tool_args: {}, approvers: ['web:alice'] },
    });
    expect(created.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(5000);
    // The fresh requests took the place of half-sent sockets, not the other way round.
    expect(flood.open()).toBeLessThanOrEqual(20);
  });

  it('closes a socket whose headers never finish after TOLLGATE_HEADERS_TIMEOUT_MS, and keeps idle keep-alive sockets usable', async () => {
    server = await startTestServer({ env: { TOLLGATE_HEADERS_TIMEOUT_MS: '300' } });
    const flood = await halfSent(server.url, 3);
    expect(flood.open()).toBe(3);
    await eventually(() => expect(flood.open()).toBe(0), 5000);
    // An idle keep-alive connection is not a slow header: a second request after the timeout still works.
    const { port } = new URL(server.url);
    const replies: string[] = [];
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    sockets.push(socket);
    socket.on('data', (chunk: Buffer) => replies.push(chunk.toString('latin1')));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually(() => expect(replies.join('')).toMatch(/^HTTP\/1\.1 200/));
    await new Promise((r) => setTimeout(r, 1000));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually(() => expect(replies.join('').match(/HTTP\/1\.1 200/g)).toHaveLength(2));
  });

  it('reads its settings from the environment and refuses nonsense', () => {
    expect(connectionLimitsFromEnv({})).toEqual(DEFAULT_CONNECTION_LIMITS);
    expect(
      connectionLimitsFromEnv({
        TOLLGATE_MAX_CONNECTIONS: '50',
        TOLLGATE_MAX_CONNECTIONS_PER_ADDRESS: '5',
        TOLLGATE_HEADERS_TIMEOUT_MS: '2000',
      }),
    ).toEqual({
      maxConnections: 50,
      maxPerAddress: 5,
      headersTimeoutMs: 2000,
    });
    expect(() => connectionLimitsFromEnv({ TOLLGATE_MAX_CONNECTIONS: '0' })).toThrow(/TOLLGATE_MAX_CONNECTIONS/);
    expect(() => connectionLimitsFromEnv({ TOLLGATE_HEADERS_TIMEOUT_MS: 'soon' })).toThrow(
      /TOLLGATE_HEADERS_TIMEOUT_MS/,
    );
  });
});
