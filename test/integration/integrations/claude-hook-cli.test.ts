/**
 * `tollgate claude-hook` end to end: the CLI as a child process, against `tollgate serve` as a child process,
 * decided through the API.
 *
 * Over 30 s: twenty scenarios, each a gateway process and one or more CLI processes (compiled from the sources, see
 * spawnCli), several of them waiting out real one-second timeouts; it runs in vitest.config.ts's `waiting` project,
 * beside the other files that wait.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  allRequests,
  childGatewaysPerTest,
  clientEnv,
  decide,
  eventsOf,
  pendingRequest,
  runCli,
  spawnCli,
} from './helpers.js';

// Each test starts gateways and CLIs as child processes on two shared cores.
const SLOW = 120_000;

const { gateway } = childGatewaysPerTest('claude-hook');

const hookInput = (toolUseId: string, toolInput: Record<string, unknown> = { command: 'rm -rf build' }) =>
  JSON.stringify({
    session_id: 'sess-1',
    transcript_path: '/tmp/t.jsonl',
    cwd: '/work/project',
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: toolInput,
    tool_use_id: toolUseId,
  });

const output = (stdout: string) =>
  JSON.parse(stdout) as {
    hookSpecificOutput: {
      hookEventName: string;
      permissionDecision: string;
      permissionDecisionReason: string;
      updatedInput?: Record<string, unknown>;
    };
  };

describe('tollgate claude-hook', { timeout: SLOW }, () => {
  it('files the tool call as a request and allows it with the approver-edited input', async () => {
    const gw = await gateway();
    const hook = spawnCli(['claude-hook', '--timeout', '60'], { stdin: hookInput('toolu_allow'), env: clientEnv(gw) });
    const request = await pendingRequest(gw, (r) => r.tool_call_id === 'toolu_allow');
    expect(request).toMatchObject({
      tool_name: 'Bash',
      tool_args: { command: 'rm -rf build' },
      session_id: 'sess-1',
      agent_id: 'claude-code',
      idempotency_key: 'claude-code:toolu_allow',
      metadata: { source: 'claude-code', cwd: '/work/project', permission_mode: 'default' },
    });
    await decide(gw, request.id, {
      decision: 'approve',
      reason: 'build dir only',
      approved_args: { command: 'rm -rf ./build' },
    });
    const result = await hook.done;
    expect(result.code).toBe(0);
    expect(output(result.stdout).hookSpecificOutput).toEqual({
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      permissionDecisionReason: 'Approved by web:alice with edited arguments: build dir only',
      updatedInput: { command: 'rm -rf ./build' },
    });
  });

  it("denies with the approver's reason for the model to read", async () => {
    const gw = await gateway();
    const hook = spawnCli(['claude-hook'], { stdin: hookInput('toolu_deny'), env: clientEnv(gw) });
    const request = await pendingRequest(gw, (r) => r.tool_call_id === 'toolu_deny');
    await decide(gw, request.id, { decision: 'deny', approver: 'web:bob', reason: 'not on the release branch' });
    const result = await hook.done;
    expect(result.code).toBe(0);
    const out = output(result.stdout).hookSpecificOutput;
    expect(out.permissionDecision).toBe('deny');
    expect(out.permissionDecisionReason).toContain('Denied by web:bob: not on the release branch');
    expect(out.updatedInput).toBeUndefined();
  });

  it('denies when the request expires unanswered', async () => {
    const gw = await gateway();
    const result = await runCli(['claude-hook', '--expires', '1'], {
      stdin: hookInput('toolu_expire'),
      env: clientEnv(gw),
    });
    expect(result.code).toBe(0);
    const out = output(result.stdout).hookSpecificOutput;
    expect(out.permissionDecision).toBe('deny');
    expect(out.permissionDecisionReason).toMatch(/No approver answered in time, so the call was denied by default/);
    expect((await allRequests(gw))[0]).toMatchObject({ status: 'expired', tool_call_id: 'toolu_expire' });
  });

  it('keeps waiting through a gateway restart (SIGKILL) and gets the verdict from the new process', async () => {
    const first = await gateway();
    const hook = spawnCli(['claude-hook'], { stdin: hookInput('toolu_restart'), env: clientEnv(first) });
    const request = await pendingRequest(first, (r) => r.tool_call_id === 'toolu_restart');
    await first.kill('SIGKILL');
    const second = await gateway();
    expect(second.url).toBe(first.url);
    await decide(second, request.id, { decision: 'approve' });
    const result = await hook.done;
    expect(result.code).toBe(0);
    expect(output(result.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
  });

  it('asks again when a stopping gateway (SIGTERM) answers "still pending" early, and gets the verdict from the new process', async () => {
    const first = await gateway();
    const hook = spawnCli(['claude-hook', '--timeout', '90'], {
      stdin: hookInput('toolu_sigterm'),
      env: clientEnv(first),
    });
    const request = await pendingRequest(first, (r) => r.tool_call_id === 'toolu_sigterm');
    expect(await first.kill('SIGTERM')).toBe(0);
    const second = await gateway();
    await decide(second, request.id, { decision: 'approve', reason: 'after the restart' });
    const result = await hook.done;
    expect(result.code).toBe(0);
    expect(output(result.stdout).hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      permissionDecisionReason: 'Approved by web:alice: after the restart',
    });
    expect(await allRequests(second)).toHaveLength(1);
  });

  it('answers a deferred deny with the link before its timeout; a retry re-attaches, and the same call asked again is allowed once approved', async () => {
    const gw = await gateway();
    const first = await runCli(['claude-hook', '--timeout', '1', '--expires', '600'], {
      stdin: hookInput('toolu_late'),
      env: clientEnv(gw),
    });
    expect(first.code).toBe(0);
    const pending = output(first.stdout).hookSpecificOutput;
    expect(pending.permissionDecision).toBe('deny');
    expect(pending.permissionDecisionReason).toMatch(
      /^Waiting for approval: .*\/ui\/requests\/.* — run the same command again once it is approved/,
    );

    // The model retried the same call under a new tool_use_id while nobody had decided: same request, no second card.
    const retried = await runCli(['claude-hook', '--timeout', '1'], {
      stdin: hookInput('toolu_late_retry'),
      env: clientEnv(gw),
    });
    expect(output(retried.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const [request, ...others] = await allRequests(gw);
    expect(others).toHaveLength(0);
    expect(request).toMatchObject({ status: 'pending', tool_call_id: 'toolu_late' });
    expect(pending.permissionDecisionReason).toContain(request!.id);
    await decide(gw, request!.id, { decision: 'approve', reason: 'ok now' });

    // A new session's retry (as `claude -p` run again makes it) under a new tool_use_id: allowed at once, no new card.
    const again = await runCli(['claude-hook', '--timeout', '1'], {
      stdin: JSON.stringify({ ...JSON.parse(hookInput('toolu_late_again')), session_id: 'sess-2' }),
      env: clientEnv(gw),
    });
    expect(again.code).toBe(0);
    expect(output(again.stdout).hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      permissionDecisionReason: 'Approved by web:alice: ok now',
    });
    expect(await allRequests(gw)).toHaveLength(1);
  });

  it('denies (exit 0) a tool_use_id reused with other input instead of letting it through', async () => {
    const gw = await gateway();
    await runCli(['claude-hook', '--timeout', '1'], {
      stdin: hookInput('toolu_reuse', { command: 'ls' }),
      env: clientEnv(gw),
    });
    const result = await runCli(['claude-hook', '--timeout', '1'], {
      stdin: hookInput('toolu_reuse', { command: 'rm -rf /' }),
      env: clientEnv(gw),
    });
    expect(result.code).toBe(0);
    expect(output(result.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(output(result.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/idempotency_key/);
  });

  it('needs a token scoped to request:create only: the gateway files, waits and records receipts itself', async () => {
    const gw = await gateway();
    const created = await gw.api('/v1/tokens', { body: { name: 'claude-agent', scopes: ['request:create'] } });
    expect(created.status).toBe(201);
    const env = { TOLLGATE_URL: gw.url, TOLLGATE_TOKEN: ((await created.json()) as { secret: string }).secret };
    const pre = await runCli(['claude-hook', '--timeout', '1'], { stdin: hookInput('toolu_scoped'), env });
    expect(pre.code).toBe(0);
    expect(output(pre.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(/^Waiting for approval/);
    const [request] = await allRequests(gw);
    await decide(gw, request!.id, { decision: 'approve' });
    const post = await runCli(['claude-hook'], {
      stdin: JSON.stringify({ ...JSON.parse(hookInput('toolu_scoped')), hook_event_name: 'PostToolUse' }),
      env,
    });
    expect(post).toMatchObject({ code: 0, stdout: '' });
    expect((await eventsOf(gw, request!.id)).map((e) => e.type)).toContain('executed');
  });

  describe('malformed input: a message on stderr and exit 2, which blocks the call', () => {
    const env = { TOLLGATE_URL: 'http://127.0.0.1:9', TOLLGATE_TOKEN: 't' };
    it.each([
      ['not JSON', 'this is not json', /not valid JSON/],
      ['empty stdin', '', /no hook input on stdin/],
      [
        'no tool_input',
        JSON.stringify({ tool_name: 'Bash', session_id: 's' }),
        /invalid hook input: tool_input: required/,
      ],
      ['tool_input not an object', JSON.stringify({ tool_name: 'Bash', tool_input: 'ls' }), /tool_input/],
      [
        'another hook event',
        JSON.stringify({ hook_event_name: 'Stop', tool_name: 'Bash', tool_input: {} }),
        /hook_event_name: this hook handles "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure" events only/,
      ],
    ])('%s', async (_name, stdin, message) => {
      const result = await runCli(['claude-hook'], { stdin, env });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
    });

    it('a missing token', async () => {
      const result = await runCli(['claude-hook'], {
        stdin: hookInput('toolu_x'),
        env: { TOLLGATE_URL: 'http://127.0.0.1:9', TOLLGATE_TOKEN: '' },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/TOLLGATE_TOKEN/);
    });

    it('a bad flag value', async () => {
      const result = await runCli(['claude-hook', '--on-timeout', 'maybe'], { stdin: hookInput('toolu_x'), env });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--on-timeout/);
    });

    it('the same words from a gateway that is up, and nothing filed', async () => {
      const gw = await gateway();
      const input = await runCli(['claude-hook'], {
        stdin: JSON.stringify({ tool_name: 'Bash', session_id: 's' }),
        env: clientEnv(gw),
      });
      expect(input).toMatchObject({
        code: 2,
        stdout: '',
        stderr: expect.stringMatching(/invalid hook input: tool_input: required/),
      });
      const flag = await runCli(['claude-hook', '--on-timeout', 'maybe'], {
        stdin: hookInput('toolu_flag'),
        env: clientEnv(gw),
      });
      expect(flag).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/--on-timeout/) });
      expect(await allRequests(gw)).toHaveLength(0);
    });

    it('input over 1 MiB', async () => {
      const result = await runCli(['claude-hook'], {
        stdin: hookInput('toolu_big', { content: 'x'.repeat(1024 * 1024) }),
        env,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/hook input is larger than 1048576 bytes/);
    });

    it('a gateway that cannot be reached before --timeout', async () => {
      const result = await runCli(['claude-hook', '--timeout', '1'], { stdin: hookInput('toolu_down'), env });
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(/cannot reach the gateway at http:\/\/127\.0\.0\.1:9/);
    });

    it('a 200 that is not a hook answer (a proxy page)', async () => {
      const proxy = createServer((_req, res) => res.end('<html>welcome</html>'));
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      try {
        const { port } = proxy.address() as { port: number };
        const result = await runCli(['claude-hook'], {
          stdin: hookInput('toolu_proxy'),
          env: { TOLLGATE_URL: `http://127.0.0.1:${port}`, TOLLGATE_TOKEN: 't' },
        });
        expect(result).toMatchObject({ code: 2, stdout: '' });
        expect(result.stderr).toMatch(/not a hook answer: <html>welcome/);
      } finally {
        proxy.close();
      }
    });

    it('a wrong token (the gateway answers 401)', async () => {
      const gw = await gateway();
      const result = await runCli(['claude-hook'], {
        stdin: hookInput('toolu_401'),
        env: { TOLLGATE_URL: gw.url, TOLLGATE_TOKEN: 'wrong' },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/does not accept TOLLGATE_TOKEN \(invalid bearer token/);
    });
  });
});
