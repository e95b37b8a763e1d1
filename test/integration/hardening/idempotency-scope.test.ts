/**
 * Idempotency keys belong to the token that filed (issue 58, findings 1 and 2). Another token posting the same key
 * neither reads that token's request (no 200 with its row, no 409 naming its id) nor uses its approval: it gets a
 * request of its own. The filer's own retry still collects its verdict. On SQLite and PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

let server: TestServer | undefined;
let database: FreshDatabase | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await database?.drop();
  database = undefined;
});

/** A gateway on `dialect`, and a caller for each of two agent tokens. */
async function twoAgents(dialect: 'sqlite' | 'postgres') {
  if (dialect === 'postgres') database = await freshDatabase();
  server = await startTestServer(database ? { dbPath: database.url } : {});
  const s = server;
  const secret = async (name: string) =>
    ((await (await s.api('/v1/tokens', { body: { name, scopes: ['request:create'] } })).json()) as { secret: string })
      .secret;
  const as = (token: string) => (path: string, body?: unknown) =>
    fetch(`${s.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { s, one: as(await secret('agent-one')), two: as(await secret('agent-two')) };
}

const approve = async (s: TestServer, id: string) =>
  expect(
    (await s.api(`/v1/requests/${id}/decision`, { body: { approver: 'web:carol', decision: 'approve' } })).status,
  ).toBe(200);

describe.each(['sqlite', 'postgres'] as const)('idempotency keys belong to the token that filed (%s)', (dialect) => {
  it("another token's key reads nothing: same arguments file its own request, other arguments no 409", async () => {
    const { s, one, two } = await twoAgents(dialect);
    const body = { tool_name: 'deploy', tool_args: { env: 'prod' }, idempotency_key: 'hook:-:call_1' };
    const first = await one('/v1/requests', body);
    expect(first.status).toBe(201);
    const mine = (await first.json()) as ApiRequest;
    await approve(s, mine.id);

    const theirs = await two('/v1/requests', body);
    expect(theirs.status).toBe(201);
    const filed = (await theirs.json()) as ApiRequest;
    expect(filed.id).not.toBe(mine.id);
    expect([filed.filed_by, filed.status, filed.allowed, filed.verdict_token ?? null]).toEqual([
      'agent-two',
      'pending',
      null,
      null,
    ]);

    const other = await two('/v1/requests', { ...body, idempotency_key: 'hook:-:call_2', tool_args: { env: 'dev' } });
    await one('/v1/requests', { ...body, idempotency_key: 'hook:-:call_2' });
    expect(other.status).toBe(201);
    const clash = await two('/v1/requests', { ...body, tool_args: { env: 'dev' } });
    expect(clash.status).toBe(409);
    const text = await clash.text();
    expect(text).toContain(filed.id);
    expect(text).not.toContain(mine.id);

    // The filer's own retry is still answered with its own row.
    const again = await one('/v1/requests', body);
    expect(again.status).toBe(200);
    expect(((await again.json()) as ApiRequest).id).toBe(mine.id);
  });

  it("Claude Code's tool_use_id: another token in another repo gets a fresh request; the filer's retry is allowed", async () => {
    const { s, one, two } = await twoAgents(dialect);
    const call = (cwd: string) => ({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'make deploy' },
      tool_use_id: 'toolu_X',
      cwd,
    });
    type HookAnswer = { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason?: string } };
    const decisionOf = async (r: Response) => ((await r.json()) as HookAnswer).hookSpecificOutput.permissionDecision;
    const asked = await one('/v1/hooks/claude-code?wait=0.5', call('/repoA'));
    const id = asked.headers.get('tollgate-request-id')!;
    expect(await decisionOf(asked)).toBe('deny');
    await approve(s, id);

    const stolen = await two('/v1/hooks/claude-code?wait=0.5', call('/repoB'));
    expect(await decisionOf(stolen)).toBe('deny');
    expect(stolen.headers.get('tollgate-request-id')).not.toBe(id);
    expect(stolen.headers.get('tollgate-request-status')).toBe('pending');

    const retry = await one('/v1/hooks/claude-code?wait=0.5', call('/repoA'));
    expect(retry.headers.get('tollgate-request-id')).toBe(id);
    expect(await decisionOf(retry)).toBe('allow');
  });

  it('the same token reusing a tool_use_id from another working directory does not collect the approval', async () => {
    const { s, one } = await twoAgents(dialect);
    const call = (cwd: string) => ({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'make deploy' },
      tool_use_id: 'toolu_Y',
      cwd,
    });
    const asked = await one('/v1/hooks/claude-code?wait=0.5', call('/repoA'));
    await approve(s, asked.headers.get('tollgate-request-id')!);
    const elsewhere = await one('/v1/hooks/claude-code?wait=0.5', call('/repoB'));
    const answer = (await elsewhere.json()) as { hookSpecificOutput: { permissionDecision: string } };
    expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
    const retry = await one('/v1/hooks/claude-code?wait=0.5', call('/repoA'));
    expect(((await retry.json()) as typeof answer).hookSpecificOutput.permissionDecision).toBe('allow');
  });
});
