/**
 * Claude Code PostToolUse / PostToolUseFailure as receipts (#19): after a gated call ran, `tollgate claude-hook` and
 * `POST /v1/hooks/claude-code` record `executed` / `execution_failed` on its request — found by `tool_use_id`, or
 * by session and input for a PermissionRequest-gated call — with a check that the input that ran is the approved one.
 * Each follows the receipt the hook's hand-out recorded when it allowed the call (`allowed to run by tollgate hook
 * claude`), which marks the approval used.
 */
import { describe, expect, it } from 'vitest';
import { argsSha256 } from '../../../src/requests/args-hash.js';
import {
  allRequests,
  body,
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

const { gateway } = childGatewaysPerTest('claude-receipt');

const input = (event: string, toolInput: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: 'sess-r',
    transcript_path: '/t',
    cwd: '/w',
    permission_mode: 'default',
    hook_event_name: event,
    tool_name: 'Bash',
    tool_input: toolInput,
    ...extra,
  });

describe('Claude Code receipts', { timeout: SLOW }, () => {
  it('claude-hook on PostToolUse records executed on the PreToolUse request of the same tool_use_id, args matching the edit', async () => {
    const gw = await gateway();
    const pre = spawnCli(['claude-hook'], {
      stdin: input('PreToolUse', { command: 'rm -rf build' }, { tool_use_id: 'toolu_r1' }),
      env: clientEnv(gw),
    });
    const request = await pendingRequest(gw, (r) => r.tool_call_id === 'toolu_r1');
    await decide(gw, request.id, { decision: 'approve', approved_args: { command: 'rm -rf ./build' } });
    expect((await pre.done).code).toBe(0);

    const post = await runCli(['claude-hook'], {
      stdin: input(
        'PostToolUse',
        { command: 'rm -rf ./build' },
        { tool_use_id: 'toolu_r1', tool_response: { stdout: '' } },
      ),
      env: clientEnv(gw),
    });
    expect(post).toMatchObject({ code: 0, stdout: '' });
    const executed = (await eventsOf(gw, request.id)).filter((e) => e.type === 'executed');
    expect(executed.map((e) => e.detail.detail ?? 'PostToolUse')).toEqual([
      'allowed to run by tollgate hook claude',
      'PostToolUse',
    ]);
    expect(executed[1]!.detail).toMatchObject({
      allowed: true,
      args_match: true,
      args_sha256: argsSha256('Bash', { command: 'rm -rf ./build' }),
    });
  });

  it('claude-hook on PostToolUseFailure records execution_failed on a PermissionRequest-gated call, found by session and input', async () => {
    const gw = await gateway();
    const ask = spawnCli(['claude-hook'], {
      stdin: input('PermissionRequest', { command: 'make deploy' }),
      env: clientEnv(gw),
    });
    const request = await pendingRequest(gw, (r) => r.tool_args.command === 'make deploy');
    await decide(gw, request.id, { decision: 'approve' });
    expect((await ask.done).code).toBe(0);

    const post = await runCli(['claude-hook'], {
      stdin: input(
        'PostToolUseFailure',
        { command: 'make deploy' },
        { tool_use_id: 'toolu_r2', error_message: 'exit status 2' },
      ),
      env: clientEnv(gw),
    });
    expect(post.code).toBe(0);
    const events = await eventsOf(gw, request.id);
    expect(events.filter((e) => e.type === 'execution_failed').map((e) => e.detail)).toEqual([
      expect.objectContaining({ detail: 'exit status 2', args_match: true }),
    ]);

    // Reported once: the same input running again (allowed by a rule, never gated) is not pinned on that request.
    await runCli(['claude-hook'], {
      stdin: input('PostToolUse', { command: 'make deploy' }, { tool_use_id: 'toolu_r3' }),
      env: clientEnv(gw),
    });
    expect(
      (await eventsOf(gw, request.id))
        .filter((e) => e.type === 'executed' || e.type === 'execution_failed')
        .map((e) => e.type),
    ).toEqual(['executed', 'execution_failed']);
  });

  it('POST /v1/hooks/claude-code records PostToolUse receipts too, and nothing for a call tollgate never gated', async () => {
    const gw = await gateway();
    const pre = body(
      gw.api('/v1/hooks/claude-code', {
        body: JSON.parse(input('PreToolUse', { command: 'ls' }, { tool_use_id: 'toolu_h1' })),
      }),
    );
    const request = await pendingRequest(gw, (r) => r.tool_call_id === 'toolu_h1');
    await decide(gw, request.id, { decision: 'approve' });
    await pre;
    expect(
      await body(
        gw.api('/v1/hooks/claude-code', {
          body: JSON.parse(input('PostToolUse', { command: 'ls' }, { tool_use_id: 'toolu_h1' })),
        }),
      ),
    ).toEqual({});
    expect((await eventsOf(gw, request.id)).filter((e) => e.type === 'executed').map((e) => e.detail)).toEqual([
      expect.objectContaining({ detail: 'allowed to run by tollgate hook claude' }),
      expect.objectContaining({ args_match: true }),
    ]);

    const stray = await gw.api('/v1/hooks/claude-code', {
      body: JSON.parse(input('PostToolUse', { command: 'pwd' }, { tool_use_id: 'toolu_never' })),
    });
    expect(stray.status).toBe(200);
    expect(await stray.json()).toEqual({});
    expect(await allRequests(gw)).toHaveLength(1);
    expect((await eventsOf(gw, request.id)).filter((e) => e.type === 'executed')).toHaveLength(2);
  });
});
