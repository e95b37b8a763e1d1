// callback_url is a server-side request chosen by the caller: loopback, private and link-local targets, credentials in
// the URL and redirects are refused unless the operator allows the host (TOLLGATE_CALLBACK_ALLOW).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callbackUrlProblem, isPrivateAddress } from '../../../src/utils/outbound.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A local HTTP server answering every request with `handler`; resolves with its base URL. */
async function local(
  handler: (path: string) => { status: number; location?: string },
  hits: string[],
): Promise<string> {
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const answer = handler(req.url ?? '');
    res.writeHead(answer.status, answer.location ? { location: answer.location } : {});
    res.end();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('callback_url targets', () => {
  it.each([
    'http://127.0.0.1:9/hook',
    'http://localhost/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/hook',
    'http://10.1.2.3/hook',
    'http://192.168.0.10/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'https://user:pass@example.com/hook',
  ])('POST /v1/requests with callback_url %s → 400 naming callback_url, no row', async (url) => {
    t = await startTestServer();
    const res = await t.api('/v1/requests', { body: { tool_name: 'x', callback_url: url } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('callback_url');
    expect(((await (await t.api('/v1/requests')).json()) as { items: unknown[] }).items).toHaveLength(0);
  });

  it('accepts a public host, and a private one the operator allows', () => {
    expect(callbackUrlProblem('https://hooks.example.com/x', [])).toBeNull();
    expect(callbackUrlProblem('http://127.0.0.1:8080/x', ['127.0.0.1'])).toBeNull();
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('fe80::1')).toBe(true);
  });

  it('never follows a redirect with the signed body', async () => {
    const hits: string[] = [];
    const target = await local(() => ({ status: 204 }), hits);
    const redirector = await local(() => ({ status: 307, location: `${target}/elsewhere` }), hits);
    t = await startTestServer({
      scheduler: new InProcessScheduler({ backoffMs: 5, attempts: 1, sweepEveryMs: 0 }),
      env: { TOLLGATE_CALLBACK_ALLOW: '127.0.0.1' },
    });
    const { id } = (await (
      await t.api('/v1/requests', { body: { tool_name: 'x', callback_url: `${redirector}/hook` } })
    ).json()) as { id: string };
    await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'deny', approver: 'web:alice' } });
    const failed = await eventually(async () => {
      const events = (
        (await (await t!.api(`/v1/requests/${id}/events`, { headers: { accept: 'application/json' } })).json()) as {
          items: { type: string; detail: Record<string, unknown> }[];
        }
      ).items;
      const event = events.find((e) => e.type === 'callback_failed');
      expect(event).toBeDefined();
      return event!;
    });
    expect(String(failed.detail.error)).toContain('redirects are not followed');
    expect(hits).toEqual(['/hook']);
  });
});
