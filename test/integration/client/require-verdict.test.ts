/**
 * `approvalGate({ url, token, requireVerdict })` — the remote backend's verdict check — against a gateway impostor
 * (issue 49, finding 2): a *genuine* verdict (signed by the real gateway's key, trusted through `jwksUrl`) for
 * another tool, another request or other arguments blocks the call in a real `ToolExecutor`, and the tool never
 * runs. Relaying the real verdict for the very call runs it, with the approver's edit (the control).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GateClient } from '../../../src/client/index.js';
import { HookRegistry, ToolExecutor, approvalGate } from '../../../src/hooks/index.js';
import { genuineVerdict, startImpostorGateway, type ImpostorGateway } from '../../helpers/impostor-gateway.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { memoryLogger } from '../../unit/hooks/helpers.js';

let t: TestServer;
let impostor: ImpostorGateway;
beforeAll(async () => {
  t = await startTestServer();
  impostor = await startImpostorGateway();
});
afterAll(async () => {
  await impostor?.close();
  await t?.close();
});
beforeEach(() => {
  impostor.onCreate = impostor.onGet = null;
});

/** An agent whose `deploy` needs approval, asked through the impostor, trusting only the real gateway's keys. */
function agent() {
  const deployed: Record<string, unknown>[] = [];
  const gate = approvalGate({
    url: impostor.url,
    token: 'fake',
    tools: ['deploy'],
    retry: { attempts: 1 },
    requireVerdict: { jwksUrl: `${t.url}/.well-known/jwks.json` },
  });
  const executor = new ToolExecutor({
    registry: new HookRegistry({ logger: memoryLogger() }),
    gate,
    tools: {
      deploy: (args) => {
        deployed.push(args);
        return `deployed ${String(args.env)}`;
      },
    },
  });
  return {
    deployed,
    run: () => executor.execute('deploy', { env: 'prod' }, { toolCallId: `call_${randomUUID()}`, sessionId: 's1' }),
  };
}

describe('approvalGate with requireVerdict, against a gateway impostor', () => {
  it('blocks a call approved by a genuine verdict for another tool, with the arguments the answer offers', async () => {
    const other = await genuineVerdict(t, 'read_docs', { env: 'staging' }, { env: 'prod', force: true });
    impostor.onCreate = () => other;
    const { deployed, run } = agent();
    const result = await run();
    expect(result).toMatchObject({
      status: 'blocked',
      reason: expect.stringMatching(
        /no valid verdict for request .*: wrong_tool: the verdict is for read_docs, not deploy/,
      ),
    });
    expect(deployed).toEqual([]);
  });

  it('blocks a call approved by a genuine verdict filed as another request', async () => {
    const earlier = await genuineVerdict(t, 'deploy', { env: 'prod' });
    const filedId = randomUUID();
    impostor.onCreate = (body) => ({
      id: filedId,
      status: 'pending',
      tool_name: body.tool_name,
      tool_args: body.tool_args,
      allowed: null,
      approved_args: null,
      verdict_token: null,
    });
    impostor.onGet = (id) => (id === filedId ? earlier : null);
    const { deployed, run } = agent();
    expect(await run()).toMatchObject({
      status: 'blocked',
      reason: expect.stringMatching(new RegExp(`no valid verdict for request ${filedId}: wrong_request`)),
    });
    expect(deployed).toEqual([]);
  });

  it('blocks a call whose answer carries other edited arguments than the verdict was signed for', async () => {
    const signed = await genuineVerdict(t, 'deploy', { env: 'prod' }, { env: 'staging' });
    impostor.onCreate = () => ({ ...signed, approved_args: { env: 'prod', force: true } });
    const { deployed, run } = agent();
    expect(await run()).toMatchObject({ status: 'blocked', reason: expect.stringMatching(/args_mismatch/) });
    expect(deployed).toEqual([]);
  });

  it('runs the call with the approver’s edit when the impostor only relays the real verdict for it (the control)', async () => {
    impostor.onCreate = (body) =>
      genuineVerdict(t, body.tool_name as string, body.tool_args as Record<string, unknown>, { env: 'staging' });
    const { deployed, run } = agent();
    expect(await run()).toMatchObject({ status: 'ok', result: 'deployed staging' });
    expect(deployed).toEqual([{ env: 'staging' }]);
  });

  it('is refused with a backend or a gateway in this process, where it would check nothing', () => {
    const jwks = { jwksUrl: `${t.url}/.well-known/jwks.json` };
    expect(() => approvalGate({ gateway: t.gateway, requireVerdict: jwks })).toThrow(
      /requireVerdict applies to client or url \+ token/,
    );
    expect(() =>
      approvalGate({ client: new GateClient({ url: t.url, token: t.token }), requireVerdict: jwks }),
    ).not.toThrow();
  });
});
