// The approval gate's wait survives a gateway restart: the request lives in SQLite, the client reconnects
// through a stable address (a small TCP relay stands in for a load balancer) and picks the verdict up.
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket, createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HookRegistry, ToolExecutor, approvalGate } from '../../../src/hooks/index.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer } from '../../helpers/server.js';
import type { TestServer } from '../../helpers/server.js';
import { memoryLogger } from '../../unit/hooks/helpers.js';

interface Relay {
  url: string;
  target: number;
  close(): Promise<void>;
}

async function startRelay(target: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  const relay: Relay = { url: '', target, close: async () => undefined };
  const server: Server = createTcpServer((client) => {
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    upstream.connect(relay.target, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.close = () => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return relay;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('approvalGate across a gateway restart', () => {
  it('keeps waiting while the gateway is down and gets the verdict decided after it comes back', async () => {
    // Our own folder: a test server given no dbPath deletes its database when it closes.
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-restart-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const dbPath = join(dir, 'tollgate.db');
    let server: TestServer = await startTestServer({ dbPath });
    const relay = await startRelay(Number(new URL(server.url).port));
    cleanups.push(() => relay.close());

    const registry = new HookRegistry({ logger: memoryLogger() });
    const executor = new ToolExecutor({
      registry,
      gate: approvalGate({ url: relay.url, token: server.token, tools: ['deploy'] }),
      tools: { deploy: (args) => `deployed ${String(args.env)}` },
    });
    const call = executor.execute('deploy', { env: 'prod' }, { toolCallId: 'call_restart' });
    const pending = await eventually(async () => {
      const page = (await (await server.api('/v1/requests?status=pending')).json()) as { items: ApiRequest[] };
      if (!page.items[0]) throw new Error('not filed yet');
      return page.items[0];
    });

    await server.close();
    server = await startTestServer({ dbPath });
    cleanups.push(() => server.close());
    relay.target = Number(new URL(server.url).port);

    const res = await server.api(`/v1/requests/${pending.id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice' },
    });
    expect(res.status).toBe(200);
    expect(await call).toMatchObject({ status: 'ok', result: 'deployed prod' });
  });
});
