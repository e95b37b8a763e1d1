/**
 * The pure mappings of the runtime integrations: hook input → request, request → Claude Code / PulseBot answer,
 * and the request options shared by the CLI and the hook URLs.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/errors.js';
import { claudeCodeRequest, claudeHookOutput, parseClaudeHookInput } from '../../../src/integrations/claude-code.js';
import {
  parsePulsebotHook,
  postCallDetail,
  POST_CALL_RESULT_LIMIT,
  pulsebotRequest,
  pulsebotVerdict,
} from '../../../src/integrations/pulsebot.js';
import { parseRequestOptions, rawOptionsFromQuery } from '../../../src/integrations/request-options.js';
import { verdictOf } from '../../../src/integrations/verdict.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';

const base: ApiRequest = {
  id: '01900000-0000-7000-8000-000000000001',
  status: 'pending',
  tool_name: 'Bash',
  tool_args: { command: 'ls' },
  approved_args: null,
  prompt: null,
  options: ['Approve', 'Deny'],
  agent_id: 'claude-code',
  user_id: null,
  session_id: 's',
  tool_call_id: 'tu',
  agent_kind: null,
  context: null,
  metadata: {},
  channels: [{ type: 'web' }],
  approvers: [],
  required_approvals: 1,
  on_timeout: 'deny',
  idempotency_key: 'claude-code:tu',
  args_sha256: 'a'.repeat(64),
  filed_by: null,
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-01T00:05:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  responded_at: null,
  responded_by: null,
  responded_via: null,
  responded_by_person: null,
  on_behalf_of: null,
  filed_by_person: null,
  decision_option: null,
  reason: null,
  allowed: null,
  verdict_token: null,
};
const as = (patch: Partial<ApiRequest>): ApiRequest => ({ ...base, ...patch });

describe('verdictOf', () => {
  it('reads every status', () => {
    expect(verdictOf(as({ status: 'approved', allowed: true, responded_by: 'slack:U1', reason: 'fine' }))).toEqual({
      outcome: 'allow',
      updatedArgs: null,
      reason: 'Approved by slack:U1: fine',
    });
    expect(
      verdictOf(as({ status: 'approved', allowed: true, responded_by: 'web:a', approved_args: { command: 'ls -l' } })),
    ).toMatchObject({
      outcome: 'allow',
      updatedArgs: { command: 'ls -l' },
      reason: 'Approved by web:a with edited arguments.',
    });
    expect(verdictOf(as({ status: 'denied', allowed: false, responded_by: 'web:b', reason: 'no' })).reason).toMatch(
      /^Denied by web:b: no Do not retry/,
    );
    expect(verdictOf(as({ status: 'expired', allowed: false })).outcome).toBe('deny');
    expect(verdictOf(as({ status: 'expired', allowed: true, on_timeout: 'approve' })).outcome).toBe('allow');
    expect(verdictOf(as({ status: 'cancelled', allowed: false, reason: 'superseded' })).reason).toContain(
      'cancelled: superseded',
    );
    expect(verdictOf(base)).toMatchObject({ outcome: 'pending', reason: expect.stringContaining(base.id) });
  });
});

describe('Claude Code mapping', () => {
  it('maps the hook input to a request keyed by tool_use_id', () => {
    const input = parseClaudeHookInput({
      session_id: 's1',
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: 'a.ts' },
      tool_use_id: 'toolu_1',
      cwd: '/w',
      extra: 1,
    });
    expect(claudeCodeRequest(input, { approvers: ['web:alice'], expiresS: 900 })).toEqual({
      tool_name: 'Edit',
      tool_args: { file_path: 'a.ts' },
      // The agent and where it works (no git repository: the hook found none; HTTP hooks send none).
      agent_kind: 'claude',
      context: { session_id: 's1', cwd: '/w', repo: null, branch: null, model: null },
      session_id: 's1',
      tool_call_id: 'toolu_1',
      idempotency_key: 'claude-code:toolu_1',
      metadata: { source: 'claude-code', cwd: '/w' },
      agent_id: 'claude-code',
      approvers: ['web:alice'],
      timeout_s: 900,
    });
    // Without tool_use_id (older hosts) there is nothing to re-attach by: no key.
    expect(claudeCodeRequest(parseClaudeHookInput({ tool_name: 'Bash', tool_input: {} }))).not.toHaveProperty(
      'idempotency_key',
    );
  });

  it('answers allow (with updatedInput only for edited arguments) or deny', () => {
    expect(
      claudeHookOutput(as({ status: 'approved', allowed: true, approved_args: { command: 'ls -l' } }))
        .hookSpecificOutput,
    ).toMatchObject({ permissionDecision: 'allow', updatedInput: { command: 'ls -l' } });
    expect(claudeHookOutput(as({ status: 'approved', allowed: true })).hookSpecificOutput).not.toHaveProperty(
      'updatedInput',
    );
    expect(claudeHookOutput(base).hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
    });
  });

  it('names the bad field of a malformed input', () => {
    expect(() => parseClaudeHookInput({ tool_name: 'Bash', tool_input: [] })).toThrow(/^tool_input: /);
    expect(() => parseClaudeHookInput(null)).toThrow(ValidationError);
  });
});

describe('PulseBot mapping', () => {
  it('maps a pre_call to a request and verdicts to approve / modify / deny', () => {
    const body = parsePulsebotHook({ tool_name: 'run_command', arguments: { command: 'ls' }, session_id: '' });
    expect(pulsebotRequest(body)).toEqual({
      tool_name: 'run_command',
      tool_args: { command: 'ls' },
      metadata: { source: 'pulsebot' },
      agent_id: 'pulsebot',
    });
    expect(parsePulsebotHook({ tool_name: 'x' }).arguments).toEqual({});
    expect(pulsebotVerdict(as({ status: 'approved', allowed: true }))).toMatchObject({
      verdict: 'approve',
      modified_arguments: {},
    });
    expect(
      pulsebotVerdict(as({ status: 'approved', allowed: true, approved_args: { command: 'ls -a' } })),
    ).toMatchObject({ verdict: 'modify', modified_arguments: { command: 'ls -a' } });
    expect(pulsebotVerdict(as({ status: 'denied', allowed: false }))).toMatchObject({
      verdict: 'deny',
      status: 'denied',
      request_id: base.id,
    });
  });

  it('keeps small post_call results and truncates large ones', () => {
    expect(
      postCallDetail(
        parsePulsebotHook({ tool_name: 'x', event: 'post_call', result: { success: false, error: 'boom' } }),
      ),
    ).toEqual({ result: { success: false, error: 'boom' }, success: false });
    const big = postCallDetail(
      parsePulsebotHook({ tool_name: 'x', event: 'post_call', result: { output: 'y'.repeat(10_000) } }),
    );
    expect(big.result).toMatchObject({ truncated: true });
    expect((big.result as { json: string }).json).toHaveLength(POST_CALL_RESULT_LIMIT);
  });
});

describe('request options', () => {
  it('parses channels, approvers, expiry and policy from flags or a query string', () => {
    expect(
      parseRequestOptions(
        rawOptionsFromQuery({
          channel: ['slack:C01', 'web'],
          approver: 'web:alice',
          expires: '60',
          on_timeout: 'approve',
        }),
      ),
    ).toEqual({
      channels: [{ type: 'slack', target: 'C01' }, { type: 'web' }],
      approvers: ['web:alice'],
      expiresS: 60,
      onTimeout: 'approve',
      agentId: undefined,
    });
  });

  it('names the bad option', () => {
    expect(() => parseRequestOptions({ approver: ['alice'] })).toThrow(/^approver\[0\]: approver ids look like/);
    expect(() => parseRequestOptions({ expires: '1.5' })).toThrow(/^expires: /);
    expect(() => parseRequestOptions({ on_timeout: 'maybe' })).toThrow(/^on_timeout: /);
  });
});
