/**
 * Claude Code's PermissionRequest hook event, through `tollgate claude-hook` and `POST /v1/hooks/claude-code`: the
 * answer is `hookSpecificOutput.decision` (behavior allow/deny, `message` on a deny, `updatedInput` for edited input).
 * Real CLI and `tollgate serve` child processes, decided through the API.
 */
import { describe, expect, it } from 'vitest';
import { allRequests, body, childGatewaysPerTest, clientEnv, decide, pendingRequest, spawnCli } from './helpers.js';

// Each test starts gateways and CLIs as child processes on two shared cores.
const SLOW = 120_000;

const { gateway } = childGatewaysPerTest('claude-permission');

/** A PermissionRequest input: no tool_use_id, with permission_suggestions. */
const permissionInput = (toolInput: Record<string, unknown>, session = 'sess-pr') => ({
  session_id: session,
  transcript_path: '/tmp/t.jsonl',
  cwd: '/work/project',
  permission_mode: 'default',
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: toolInput,
  permission_suggestions: [
    {
      type: 'addRules',
      rules: [{ toolName: 'Bash', ruleContent: 'npm test' }],
      behavior: 'allow',
      destination: 'localSettings',
    },
  ],
});

describe('PermissionRequest', { timeout: SLOW }, () => {
  it('claude-hook allows with the approver-edited input as decision.updatedInput', async () => {
    const gw = await gateway();
    const hook = spawnCli(['claude-hook', '--timeout', '60'], {
      stdin: JSON.stringify(permissionInput({ command: 'npm publish' })),
      env: clientEnv(gw),
    });
    const request = await pendingRequest(gw, (r) => r.tool_name === 'Bash');
    expect(request).toMatchObject({
      tool_args: { command: 'npm publish' },
      session_id: 'sess-pr',
      tool_call_id: null,
      idempotency_key: null,
      metadata: { source: 'claude-code', hook_event: 'PermissionRequest' },
    });
    await decide(gw, request.id, { decision: 'approve', approved_args: { command: 'npm publish --dry-run' } });
    const result = await hook.done;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow', updatedInput: { command: 'npm publish --dry-run' } },
      },
    });
  });

  it("claude-hook denies with the approver's reason as decision.message", async () => {
    const gw = await gateway();
    const hook = spawnCli(['claude-hook'], {
      stdin: JSON.stringify(permissionInput({ command: 'git push --force' })),
      env: clientEnv(gw),
    });
    const request = await pendingRequest(gw, (r) => r.tool_name === 'Bash');
    await decide(gw, request.id, { decision: 'deny', approver: 'web:bob', reason: 'not on main' });
    const result = await hook.done;
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as {
      hookSpecificOutput: {
        hookEventName: string;
        decision: { behavior: string; message: string; updatedInput?: unknown };
      };
    };
    expect(out.hookSpecificOutput.hookEventName).toBe('PermissionRequest');
    expect(out.hookSpecificOutput.decision).toEqual({
      behavior: 'deny',
      message: expect.stringContaining('Denied by web:bob: not on main'),
    });
  });

  it('POST /v1/hooks/claude-code answers PermissionRequest alike: a re-ask of the same input re-attaches while pending and is allowed once approved; edited input comes back as updatedInput', async () => {
    const gw = await gateway();
    type Out = {
      hookSpecificOutput: {
        hookEventName: string;
        decision: { behavior: string; message?: string; updatedInput?: Record<string, unknown> };
      };
    };
    const first = await body<Out>(
      gw.api('/v1/hooks/claude-code?wait=0.2', { body: permissionInput({ command: 'rm -rf dist' }) }),
    );
    expect(first.hookSpecificOutput).toEqual({
      hookEventName: 'PermissionRequest',
      decision: {
        behavior: 'deny',
        message: expect.stringMatching(
          /^Waiting for approval: .*\/ui\/requests\/.* — run the same command again once it is approved/,
        ),
      },
    });
    const retried = await body<Out>(
      gw.api('/v1/hooks/claude-code?wait=0.2', { body: permissionInput({ command: 'rm -rf dist' }) }),
    );
    expect(retried.hookSpecificOutput.decision.behavior).toBe('deny');
    const [pending, ...others] = await allRequests(gw);
    expect(others).toHaveLength(0);
    await decide(gw, pending!.id, { decision: 'approve' });
    const approved = await body<Out>(
      gw.api('/v1/hooks/claude-code?wait=0.2', { body: permissionInput({ command: 'rm -rf dist' }) }),
    );
    expect(approved.hookSpecificOutput).toEqual({
      hookEventName: 'PermissionRequest',
      decision: { behavior: 'allow' },
    });
    expect(await allRequests(gw)).toHaveLength(1);

    const edited = body<Out>(gw.api('/v1/hooks/claude-code', { body: permissionInput({ command: 'rm -rf build' }) }));
    const request = await pendingRequest(gw, (r) => r.tool_args.command === 'rm -rf build');
    await decide(gw, request.id, { decision: 'approve', approved_args: { command: 'rm -rf ./build' } });
    expect((await edited).hookSpecificOutput).toEqual({
      hookEventName: 'PermissionRequest',
      decision: { behavior: 'allow', updatedInput: { command: 'rm -rf ./build' } },
    });
  });
});
