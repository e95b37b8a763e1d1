/**
 * `tollgate ask` end to end: the CLI as a child process against `tollgate serve` as a child process, decided
 * through the API. Exit 0 approved; 1 denied, expired, cancelled; 2 usage; 3 gateway error.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import {
  allRequests,
  body,
  childGatewaysPerTest,
  clientEnv,
  decide,
  pendingRequest,
  runCli,
  spawnCli,
} from './helpers.js';

// Each test starts gateways and CLIs as child processes on two shared cores.
const SLOW = 120_000;

const { gateway } = childGatewaysPerTest('ask');

describe('tollgate ask', { timeout: SLOW }, () => {
  it('exits 0 and prints the approver and reason when approved; the question is the prompt, routed as asked', async () => {
    const gw = await gateway();
    const ask = spawnCli(
      ['ask', '--channel', 'web', '--approver', 'web:alice', '--timeout', '120', 'Deploy', 'v1.2', 'to prod?'],
      { env: clientEnv(gw) },
    );
    const request = await pendingRequest(gw, (r) => r.prompt === 'Deploy v1.2 to prod?');
    expect(request).toMatchObject({
      tool_name: 'ask',
      agent_id: 'tollgate-ask',
      approvers: ['web:alice'],
      channels: [{ type: 'web' }],
    });
    expect(Date.parse(request.expires_at) - Date.parse(request.created_at)).toBe(120_000);
    await decide(gw, request.id, { decision: 'approve', reason: 'green build' });
    const result = await ask.done;
    expect(result).toMatchObject({ code: 0, stdout: 'approved by web:alice: green build\n' });
    expect(result.stderr).toContain(request.id);
  });

  it('exits 1 with the reason when denied', async () => {
    const gw = await gateway();
    const ask = spawnCli(['ask', 'Drop the table?'], { env: clientEnv(gw) });
    const request = await pendingRequest(gw, (r) => r.prompt === 'Drop the table?');
    await decide(gw, request.id, { decision: 'deny', approver: 'web:bob', reason: 'no backup yet' });
    expect(await ask.done).toMatchObject({ code: 1, stdout: 'denied by web:bob: no backup yet\n' });
  });

  it('exits 1 when the question expires unanswered', async () => {
    const gw = await gateway();
    const result = await runCli(['ask', '--timeout', '1', '--quiet', 'Anyone?'], { env: clientEnv(gw) });
    expect(result).toMatchObject({
      code: 1,
      stdout: 'expired: nobody answered in time (denied by default)\n',
      stderr: '',
    });
  });

  it('exits 0 on expiry when --on-timeout approve says silence is consent', async () => {
    const gw = await gateway();
    const result = await runCli(['ask', '--timeout', '1', '--on-timeout', 'approve', '--json', 'Nightly job?'], {
      env: clientEnv(gw),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'expired', allowed: true, on_timeout: 'approve' });
  });

  it('exits 1 when the request is cancelled through the API', async () => {
    const gw = await gateway();
    const ask = spawnCli(['ask', 'Rotate keys?'], { env: clientEnv(gw) });
    const request = await pendingRequest(gw, (r) => r.prompt === 'Rotate keys?');
    expect((await gw.api(`/v1/requests/${request.id}/cancel`, { body: { reason: 'superseded' } })).status).toBe(200);
    expect(await ask.done).toMatchObject({ code: 1, stdout: 'cancelled: superseded\n' });
  });

  it('survives a gateway restart (SIGKILL) during the wait', async () => {
    const first = await gateway();
    const ask = spawnCli(['ask', 'Restart-proof?'], { env: clientEnv(first) });
    const request = await pendingRequest(first, (r) => r.prompt === 'Restart-proof?');
    await first.kill('SIGKILL');
    const second = await gateway();
    await decide(second, request.id, { decision: 'approve' });
    expect(await ask.done).toMatchObject({ code: 0, stdout: 'approved by web:alice\n' });
    expect(await allRequests(second)).toHaveLength(1);
  });

  it('cancels its request when interrupted (SIGINT) and exits 130', async () => {
    const gw = await gateway();
    const ask = spawnCli(['ask', 'Interrupt me?'], { env: clientEnv(gw) });
    const request = await pendingRequest(gw, (r) => r.prompt === 'Interrupt me?');
    ask.process.kill('SIGINT');
    expect((await ask.done).code).toBe(130);
    await eventually(async () => expect((await body(gw.api(`/v1/requests/${request.id}`))).status).toBe('cancelled'));
  });

  it('rejects bad usage with exit 2 and a gateway refusal with exit 3', async () => {
    const gw = await gateway();
    const [noQuestion, badTimeout, badChannel, wrongToken] = await Promise.all([
      runCli(['ask'], { env: clientEnv(gw) }),
      runCli(['ask', '--timeout', 'soon', 'Q?'], { env: clientEnv(gw) }),
      runCli(['ask', '--channel', 'Not A Channel', 'Q?'], { env: clientEnv(gw) }),
      runCli(['ask', 'Q?'], { env: { TOLLGATE_URL: gw.url, TOLLGATE_TOKEN: 'wrong' } }),
    ]);
    expect(noQuestion.code).toBe(2);
    expect(noQuestion.stderr).toMatch(/the question is missing/);
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr).toMatch(/--timeout must be a number/);
    expect(badChannel.code).toBe(2);
    expect(badChannel.stderr).toMatch(/--channel\[0\]/);
    expect(wrongToken.code).toBe(3);
    expect(wrongToken.stderr).toMatch(/gateway answered 401/);
    expect(await allRequests(gw)).toHaveLength(0);
  });
});
