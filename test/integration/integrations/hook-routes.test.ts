/**
 * `POST /v1/hooks/claude-code` and `POST /v1/hooks/pulsebot` end to end, against `tollgate serve` as a child
 * process, decided through the API.
 *
 * Over 30 s: ten scenarios, each starting (and some restarting) `tollgate serve` as a process and waiting out real
 * `?wait` and expiry times; it runs in vitest.config.ts's `waiting` project, beside the other files that wait.
 */
import { describe, expect, it } from 'vitest';
import { allRequests, body, childGatewaysPerTest, decide, eventsOf, pendingRequest } from './helpers.js';

// Each test starts gateways and CLIs as child processes on two shared cores.
const SLOW = 120_000;

const { gateway } = childGatewaysPerTest('hook-routes');

interface HookOut {
  hookSpecificOutput: {
    permissionDecision: string;
    permissionDecisionReason: string;
    updatedInput?: Record<string, unknown>;
  };
}
interface PulseOut {
  verdict: string;
  reasoning: string;
  modified_arguments: Record<string, unknown>;
  request_id: string;
}

const claudeInput = (toolUseId: string, toolInput: Record<string, unknown> = { file_path: '/etc/hosts' }) => ({
  session_id: 'sess-http',
  hook_event_name: 'PreToolUse',
  tool_name: 'Write',
  tool_input: toolInput,
  tool_use_id: toolUseId,
});

describe('POST /v1/hooks/claude-code', { timeout: SLOW }, () => {
  it('allows with updatedInput, denies with the reason, and expires to a deny', async () => {
    const gw = await gateway();
    const allowed = body<HookOut>(gw.api('/v1/hooks/claude-code', { body: claudeInput('tu_a') }));
    const denied = body<HookOut>(
      gw.api('/v1/hooks/claude-code?approver=web:bob', { body: claudeInput('tu_d', { file_path: '/etc/passwd' }) }),
    );
    const expired = body<HookOut>(
      gw.api('/v1/hooks/claude-code?expires=1', { body: claudeInput('tu_e', { file_path: '/tmp/x' }) }),
    );
    const a = await pendingRequest(gw, (r) => r.tool_call_id === 'tu_a');
    const d = await pendingRequest(gw, (r) => r.tool_call_id === 'tu_d');
    expect(d.approvers).toEqual(['web:bob']);
    await decide(gw, a.id, { decision: 'approve', approved_args: { file_path: '/tmp/hosts' } });
    await decide(gw, d.id, { decision: 'deny', approver: 'web:bob', reason: 'system file' });
    expect((await allowed).hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      updatedInput: { file_path: '/tmp/hosts' },
    });
    expect((await denied).hookSpecificOutput.permissionDecisionReason).toContain('Denied by web:bob: system file');
    expect((await expired).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringMatching(/denied by default/),
    });
  });

  it('answers a deferred deny with the link after ?wait, then re-attaches: by tool_use_id, and by the same call under a new id; the approval runs once', async () => {
    const gw = await gateway();
    const firstResponse = await gw.api('/v1/hooks/claude-code?wait=0.2', { body: claudeInput('tu_late') });
    const first = await body<HookOut>(firstResponse);
    expect(first.hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringMatching(
        /^Waiting for approval: http:\/\/[^ ]+\/ui\/requests\/\S+ — run the same command again once it is approved/,
      ),
    });
    // The status says "still pending" apart from a verdict (tollgate claude-hook asks again while it has time).
    expect(firstResponse.headers.get('tollgate-request-status')).toBe('pending');
    // The model retried the same call under a new tool_use_id while nobody had decided: same request, no second card.
    const retried = await body<HookOut>(gw.api('/v1/hooks/claude-code?wait=0.2', { body: claudeInput('tu_late_2') }));
    expect(retried.hookSpecificOutput.permissionDecision).toBe('deny');
    const requests = await allRequests(gw);
    expect(requests).toHaveLength(1);
    await decide(gw, requests[0]!.id, { decision: 'approve', reason: 'late but fine' });
    const againResponse = await gw.api('/v1/hooks/claude-code?wait=0', { body: claudeInput('tu_late') });
    expect(againResponse.headers.get('tollgate-request-status')).toBe('approved');
    expect(againResponse.headers.get('tollgate-request-id')).toBe(requests[0]!.id);
    const again = await body<HookOut>(againResponse);
    expect(again.hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      permissionDecisionReason: 'Approved by web:alice: late but fine',
    });
    expect(await allRequests(gw)).toHaveLength(1);
    // The approval was handed out (an executed receipt): the same call under a new tool_use_id asks anew.
    expect((await eventsOf(gw, requests[0]!.id)).map((e) => e.type)).toContain('executed');
    const anew = await body<HookOut>(gw.api('/v1/hooks/claude-code?wait=0.2', { body: claudeInput('tu_late_3') }));
    expect(anew.hookSpecificOutput.permissionDecisionReason).toMatch(/^Waiting for approval/);
    expect(await allRequests(gw)).toHaveLength(2);
  });

  it('answers a waiting hook "still pending" when the gateway stops (SIGTERM); after the restart the same call gets the verdict', async () => {
    const first = await gateway();
    const waiting = body<HookOut>(first.api('/v1/hooks/claude-code', { body: claudeInput('tu_restart') }));
    const request = await pendingRequest(first, (r) => r.tool_call_id === 'tu_restart');
    expect(await first.kill('SIGTERM')).toBe(0);
    expect((await waiting).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining(request.id),
    });

    const second = await gateway();
    const asked = body<HookOut>(second.api('/v1/hooks/claude-code', { body: claudeInput('tu_restart') }));
    await decide(second, request.id, { decision: 'approve' });
    expect((await asked).hookSpecificOutput.permissionDecision).toBe('allow');
  });

  it('rejects malformed input with problem+json naming the field, and unauthenticated calls with 401', async () => {
    const gw = await gateway();
    const post = (path: string, init: { body?: string; headers?: Record<string, string> }) =>
      fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.token}`, 'content-type': 'application/json', ...init.headers },
        body: init.body,
      });
    const cases: [Promise<Response>, number, RegExp][] = [
      [post('/v1/hooks/claude-code', { body: JSON.stringify({ tool_name: 'Bash' }) }), 400, /tool_input: required/],
      [post('/v1/hooks/claude-code', { body: '{"tool_name":' }), 400, /not valid JSON/],
      [
        post('/v1/hooks/claude-code', {
          body: 'tool_name=Bash',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        415,
        /application\/json/,
      ],
      [post('/v1/hooks/claude-code?wait=soon', { body: JSON.stringify(claudeInput('x')) }), 400, /wait/],
      [
        post('/v1/hooks/claude-code?colour=red', { body: JSON.stringify(claudeInput('x')) }),
        400,
        /unknown field\(s\): colour/,
      ],
      [
        post('/v1/hooks/claude-code?channel=Bad%20Channel', { body: JSON.stringify(claudeInput('x')) }),
        400,
        /channel\[0\]/,
      ],
      [post('/v1/hooks/pulsebot', { body: JSON.stringify({ arguments: {} }) }), 400, /tool_name: required/],
      [post('/v1/hooks/pulsebot', { body: JSON.stringify({ tool_name: 'x', arguments: [1] }) }), 400, /arguments/],
      [
        post('/v1/hooks/claude-code', {
          body: JSON.stringify(claudeInput('x')),
          headers: { authorization: 'Bearer nope' },
        }),
        401,
        /invalid bearer token/,
      ],
      [
        post('/v1/hooks/pulsebot', { body: JSON.stringify({ tool_name: 'x' }), headers: { authorization: '' } }),
        401,
        /missing Authorization/,
      ],
    ];
    for (const [response, status, detail] of cases) {
      const res = await response;
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(((await res.json()) as { detail: string }).detail).toMatch(detail);
    }
    expect(await allRequests(gw)).toHaveLength(0);
  });
});

describe('POST /v1/hooks/pulsebot', { timeout: SLOW }, () => {
  const call = (args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    tool_name: 'run_command',
    arguments: args,
    session_id: 'pb-1',
    ...extra,
  });

  it('approves, modifies with the approver-edited arguments, and denies with reasoning', async () => {
    const gw = await gateway();
    const approve = body<PulseOut>(gw.api('/v1/hooks/pulsebot', { body: call({ command: 'ls' }) }));
    const modify = body<PulseOut>(gw.api('/v1/hooks/pulsebot', { body: call({ command: 'rm -rf /tmp/*' }) }));
    const deny = body<PulseOut>(gw.api('/v1/hooks/pulsebot', { body: call({ command: 'sudo reboot' }) }));
    const byCommand = async (command: string) => pendingRequest(gw, (r) => r.tool_args.command === command);
    const [a, m, d] = await Promise.all([byCommand('ls'), byCommand('rm -rf /tmp/*'), byCommand('sudo reboot')]);
    expect(a).toMatchObject({
      agent_id: 'pulsebot',
      session_id: 'pb-1',
      tool_name: 'run_command',
      metadata: { source: 'pulsebot' },
    });
    await decide(gw, a.id, { decision: 'approve' });
    await decide(gw, m.id, { decision: 'approve', approved_args: { command: 'rm -rf /tmp/cache' } });
    await decide(gw, d.id, { decision: 'deny', reason: 'no reboots in business hours' });
    expect(await approve).toMatchObject({ verdict: 'approve', modified_arguments: {}, request_id: a.id });
    expect(await modify).toMatchObject({ verdict: 'modify', modified_arguments: { command: 'rm -rf /tmp/cache' } });
    expect(await deny).toMatchObject({
      verdict: 'deny',
      reasoning: expect.stringContaining('no reboots in business hours'),
    });
  });

  it('denies on expiry', async () => {
    const gw = await gateway();
    expect(
      await body<PulseOut>(gw.api('/v1/hooks/pulsebot?expires=1', { body: call({ command: 'x' }) })),
    ).toMatchObject({
      verdict: 'deny',
      reasoning: expect.stringMatching(/denied by default/),
    });
  });

  it('records post_call notifications as post_call events on the matching request (edited arguments match too)', async () => {
    const gw = await gateway();
    const pre = body<PulseOut>(gw.api('/v1/hooks/pulsebot', { body: call({ command: 'rm -rf /tmp/*' }) }));
    const request = await pendingRequest(gw, () => true);
    await decide(gw, request.id, { decision: 'approve', approved_args: { command: 'rm -rf /tmp/cache' } });
    expect((await pre).verdict).toBe('modify');
    const post = await body<{ recorded: boolean; request_id: string }>(
      gw.api('/v1/hooks/pulsebot', {
        body: call({ command: 'rm -rf /tmp/cache' }, { event: 'post_call', result: { success: true, output: 'ok' } }),
      }),
    );
    expect(post).toEqual({ recorded: true, request_id: request.id });
    const postCalls = (await eventsOf(gw, request.id)).filter((e) => e.type === 'post_call');
    expect(postCalls).toEqual([
      expect.objectContaining({
        actor: 'pulsebot',
        detail: { result: { success: true, output: 'ok' }, success: true },
      }),
    ]);
    const unmatched = await body<{ recorded: boolean }>(
      gw.api('/v1/hooks/pulsebot', { body: call({ command: 'never asked' }, { event: 'post_call' }) }),
    );
    expect(unmatched.recorded).toBe(false);
  });

  it('delivers a late verdict to the retried call, once: after post_call the same call asks again', async () => {
    const gw = await gateway();
    const first = await body<PulseOut>(
      gw.api('/v1/hooks/pulsebot?wait=0.2&expires=600', { body: call({ command: 'deploy' }) }),
    );
    expect(first).toMatchObject({ verdict: 'deny', reasoning: expect.stringMatching(/Still waiting/) });
    await decide(gw, first.request_id, { decision: 'approve', reason: 'go' });
    const retry = await body<PulseOut>(gw.api('/v1/hooks/pulsebot?wait=0', { body: call({ command: 'deploy' }) }));
    expect(retry).toMatchObject({ verdict: 'approve', request_id: first.request_id });
    await gw.api('/v1/hooks/pulsebot', {
      body: call({ command: 'deploy' }, { event: 'post_call', result: { success: true } }),
    });
    const next = await body<PulseOut>(gw.api('/v1/hooks/pulsebot?wait=0', { body: call({ command: 'deploy' }) }));
    expect(next.verdict).toBe('deny');
    expect(next.request_id).not.toBe(first.request_id);
    expect(await allRequests(gw)).toHaveLength(2);
  });

  it('keeps a pre_call answerable across a gateway restart (SIGKILL): the retry re-attaches to the pending request', async () => {
    const first = await gateway();
    const lost = first.api('/v1/hooks/pulsebot', { body: call({ command: 'migrate' }) }).catch((e: unknown) => e);
    const request = await pendingRequest(first, (r) => r.tool_args.command === 'migrate');
    await first.kill('SIGKILL');
    expect(await lost).toBeInstanceOf(Error);
    const second = await gateway();
    const retry = body<PulseOut>(second.api('/v1/hooks/pulsebot', { body: call({ command: 'migrate' }) }));
    await decide(second, request.id, { decision: 'approve' });
    expect(await retry).toMatchObject({ verdict: 'approve', request_id: request.id });
    expect(await allRequests(second)).toHaveLength(1);
  });

  it('uses tool_call_id, when sent, as the idempotency key', async () => {
    const gw = await gateway();
    const first = await body<PulseOut>(
      gw.api('/v1/hooks/pulsebot?wait=0', { body: call({ command: 'a' }, { tool_call_id: 'call-1' }) }),
    );
    const [request] = await allRequests(gw);
    expect(request).toMatchObject({ id: first.request_id, idempotency_key: 'pulsebot:call-1', tool_call_id: 'call-1' });
    const conflict = await body<PulseOut>(
      gw.api('/v1/hooks/pulsebot?wait=0', { body: call({ command: 'b' }, { tool_call_id: 'call-1' }) }),
    );
    expect(conflict).toMatchObject({ verdict: 'deny', reasoning: expect.stringMatching(/refused/) });
  });
});
