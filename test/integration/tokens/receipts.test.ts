// Receipts: after an approved tool ran, the integration reports how it went, so auditors see proposed → approved →
// executed. Here: the route's ownership and argument check, and ToolExecutor sending one itself (remote and in process).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookRegistry, ToolExecutor, approvalGate } from '../../../src/hooks/index.js';
import type { ApprovalGateOptions } from '../../../src/hooks/index.js';
import { argsSha256 } from '../../../src/requests/args-hash.js';
import type { ApiEvent, ApiRequest } from '../../../src/requests/serialize.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { memoryLogger } from '../../unit/hooks/helpers.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

async function events(id: string): Promise<ApiEvent[]> {
  return (
    (await (await t.api(`/v1/requests/${id}/events`, { headers: { accept: 'application/json' } })).json()) as {
      items: ApiEvent[];
    }
  ).items;
}

async function agentToken(name: string): Promise<string> {
  const res = await t.api('/v1/tokens', { body: { name, scopes: ['request:create', 'request:read'] } });
  return ((await res.json()) as { secret: string }).secret;
}

describe('POST /v1/requests/:id/receipt', () => {
  it('records executed by the filing token and flags arguments that differ from the approved ones', async () => {
    const secret = await agentToken('agent');
    const call = (path: string, body: unknown) =>
      fetch(`${t.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const filed = (await (
      await call('/v1/requests', { tool_name: 'deploy', tool_args: { env: 'staging' } })
    ).json()) as ApiRequest;
    await t.api(`/v1/requests/${filed.id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice', approved_args: { env: 'canary' } },
    });

    const ranOther = await call(`/v1/requests/${filed.id}/receipt`, {
      outcome: 'succeeded',
      args_sha256: argsSha256('deploy', { env: 'staging' }),
    });
    expect(ranOther.status).toBe(201);
    expect(await ranOther.json()).toMatchObject({
      type: 'executed',
      actor: 'token:agent',
      detail: { args_match: false, allowed: true },
    });
    const ranApproved = await call(`/v1/requests/${filed.id}/receipt`, {
      outcome: 'failed',
      detail: 'exit 1',
      args_sha256: argsSha256('deploy', { env: 'canary' }),
    });
    expect(await ranApproved.json()).toMatchObject({
      type: 'execution_failed',
      detail: { args_match: true, detail: 'exit 1' },
    });
    expect((await events(filed.id)).map((e) => e.type)).toEqual([
      'created',
      'delivered',
      'approved',
      'executed',
      'execution_failed',
    ]);
  });

  it('refuses a receipt from a token that did not file the request, and bad bodies', async () => {
    const other = await agentToken('other');
    const filed = (await (await t.api('/v1/requests', { body: { tool_name: 'deploy' } })).json()) as ApiRequest;
    const res = await fetch(`${t.url}/v1/requests/${filed.id}/receipt`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: '{"outcome":"succeeded"}',
    });
    expect(res.status).toBe(404);
    const bad = await t.api(`/v1/requests/${filed.id}/receipt`, { body: { outcome: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('outcome');
    expect((await events(filed.id)).map((e) => e.type)).toEqual(['created', 'delivered']);
  });
});

describe.each(['remote', 'in-process'] as const)('ToolExecutor sends the receipt itself (%s)', (target) => {
  it('reports executed with the arguments that ran, and execution_failed when the tool throws', async () => {
    const where: Partial<ApprovalGateOptions> =
      target === 'remote' ? { url: t.url, token: t.token } : { gateway: t.gateway };
    const executor = new ToolExecutor({
      registry: new HookRegistry({ logger: memoryLogger() }),
      gate: approvalGate({ ...where, tools: ['deploy', 'migrate'], timeoutS: 120 } as ApprovalGateOptions),
      tools: {
        deploy: (args) => `deployed ${String(args.env)}`,
        migrate: () => {
          throw new Error('lock timeout');
        },
      },
    });
    const pending = async (tool: string) =>
      eventually(async () => {
        const page = (await (await t.api(`/v1/requests?status=pending&tool_name=${tool}`)).json()) as {
          items: ApiRequest[];
        };
        if (!page.items[0]) throw new Error('not filed yet');
        return page.items[0];
      });

    const deploying = executor.execute('deploy', { env: 'prod' }, { toolCallId: 'call_1' });
    const deploy = await pending('deploy');
    await t.api(`/v1/requests/${deploy.id}/decision`, { body: { decision: 'approve', approver: 'web:alice' } });
    expect((await deploying).status).toBe('ok');
    expect((await events(deploy.id)).at(-1)).toMatchObject({ type: 'executed', detail: { args_match: true } });

    const migrating = executor.execute('migrate', {}, { toolCallId: 'call_2' });
    const migrate = await pending('migrate');
    await t.api(`/v1/requests/${migrate.id}/decision`, { body: { decision: 'approve', approver: 'web:alice' } });
    expect((await migrating).status).toBe('error');
    expect((await events(migrate.id)).at(-1)).toMatchObject({
      type: 'execution_failed',
      detail: { detail: 'lock timeout' },
    });
  });
});
