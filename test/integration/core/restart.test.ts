import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';
import { eventually } from '../../helpers/eventually.js';

let dir: string;
const children: ChildGateway[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-restart-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) await child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function start() {
  const child = await startChildGateway(join(dir, 'tollgate.db'));
  children.push(child);
  return child;
}

const json = async <T = { id: string; status: string; allowed: boolean | null }>(res: Promise<Response>) =>
  (await (await res).json()) as T;

describe('restart survival (tollgate serve killed with SIGKILL)', () => {
  it('keeps every acknowledged verdict, expires overdue rows at once, and keeps the rest decidable', async () => {
    const first = await start();
    const short = await json(first.api('/v1/requests', { body: { tool_name: 'short', timeout_s: 1 } }));
    const long = await json(first.api('/v1/requests', { body: { tool_name: 'long', timeout_s: 600 } }));
    const decided: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await json(first.api('/v1/requests', { body: { tool_name: 'decided', tool_args: { i } } }));
      const res = await first.api(`/v1/requests/${r.id}/decision`, {
        body: { decision: i % 2 ? 'approve' : 'deny', approver: 'web:alice' },
      });
      expect(res.status).toBe(200);
      decided.push(r.id);
    }
    await first.kill('SIGKILL');
    // Real time, not ManualClock: the gateways are child processes (SIGKILLed mid-run), which cannot share a clock
    // with the test; 1.1 s is the shortest wait that lets a 1 s timeout fall due while no gateway runs.
    await new Promise((r) => setTimeout(r, 1100));

    const second = await start();
    expect((await json(second.api(`/v1/requests/${short.id}`))).status).toBe('expired');
    for (const [i, id] of decided.entries()) {
      expect((await json(second.api(`/v1/requests/${id}`))).status).toBe(i % 2 ? 'approved' : 'denied');
    }
    expect((await json(second.api(`/v1/requests/${long.id}`))).status).toBe('pending');
    const waiting = json(second.api(`/v1/requests/${long.id}?wait=30`));
    expect(
      (await second.api(`/v1/requests/${long.id}/decision`, { body: { decision: 'approve', approver: 'web:bob' } }))
        .status,
    ).toBe(200);
    expect(await waiting).toMatchObject({ status: 'approved', allowed: true });
  });

  it('expires, after a restart, a request that fell due while the gateway was down, exactly once', async () => {
    const first = await start();
    const r = await json(first.api('/v1/requests', { body: { tool_name: 'x', timeout_s: 1 } }));
    await first.kill('SIGKILL');
    // Real time for the same reason as above: child processes cannot share a ManualClock.
    await new Promise((res) => setTimeout(res, 1100));
    const second = await start();
    await eventually(async () => expect((await json(second.api(`/v1/requests/${r.id}`))).status).toBe('expired'));
    const res = await fetch(`${second.url}/v1/requests/${r.id}/events`, {
      headers: { authorization: `Bearer ${second.token}`, accept: 'application/json' },
    });
    const { items } = (await res.json()) as { items: { type: string }[] };
    expect(items.filter((e) => e.type === 'expired')).toHaveLength(1);
  });

  it('shuts down gracefully on SIGTERM with exit code 0', async () => {
    const child = await start();
    expect(await child.kill('SIGTERM')).toBe(0);
    expect(child.output()).toMatch(/SIGTERM received/);
  });
});
