import { describe, expect, it } from 'vitest';
import { loadPolicy, matchPolicy, routeByRule } from '../../../src/policy/index.js';

const policy = loadPolicy(
  {
    policies: [
      { name: 'reads', match: { tool: ['read_*', 'search'] }, decision: 'allow' },
      {
        name: 'no-shell',
        match: { tool: 'shell', agent: 'intern-*' },
        decision: 'deny',
        reason: 'interns do not get a shell',
      },
      {
        name: 'big-payments',
        match: { tool: 'payments.*', when: 'args.amount > 50000' },
        approvers: ['slack:U0CFO', 'web:controller'],
        required_approvals: 2,
        timeout_s: 3600,
        on_timeout: 'deny',
      },
      { name: 'pushes', match: { tool: 'bash', when: 'args.command.matches("^git push")' }, approvers: ['web:lead'] },
      {
        name: 'prod',
        match: { metadata: { env: ['prod', 'production'] }, user: 'ops-*' },
        channels: [{ type: 'slack', target: 'C0OPS' }],
      },
    ],
    default: { decision: 'ask', approvers: ['web:oncall'] },
  },
  'tollgate.yaml',
);

describe('matchPolicy', () => {
  it("matches a coding agent's calls by agent kind, repository and working directory (globs)", () => {
    const agents = loadPolicy(
      {
        policies: [
          {
            name: 'read-only',
            match: {
              agent_kind: '*',
              tool: ['Bash', 'run_shell_command'],
              when: 'args.command.matches("^(ls|cat|git status)( |$)")',
            },
            decision: 'allow',
          },
          {
            name: 'push-main',
            match: { repo: 'acme/*', when: 'args.command.matches("^git push.* main")' },
            approvers: ['group:billing-owners'],
          },
          { name: 'sandbox', match: { agent_kind: ['codex', 'gemini'], cwd: '/srv/sandbox/*' }, decision: 'allow' },
        ],
      },
      'tollgate.yaml',
    );
    const call = (
      agentKind: string | undefined,
      command: string,
      context: { repo?: string | null; cwd?: string | null } | null = null,
    ) => matchPolicy(agents, { toolName: 'Bash', toolArgs: { command }, agentKind, context }, true);
    expect(call('codex', 'ls -la').rule.name).toBe('read-only');
    expect(call(undefined, 'ls -la').explanation[0]).toMatch(/names no agent_kind/);
    expect(call('claude', 'git push origin main', { repo: 'acme/billing', cwd: '/w' }).rule).toMatchObject({
      name: 'push-main',
      approvers: ['group:billing-owners'],
    });
    expect(call('claude', 'git push origin main', { repo: 'other/billing' }).rule.name).toBe('default');
    expect(call('gemini', 'make deploy', { cwd: '/srv/sandbox/a/b' }).rule.name).toBe('sandbox');
    expect(call('cline', 'make deploy', { cwd: '/srv/sandbox/a' }).rule.name).toBe('default');
  });

  it('allows by tool glob, first match wins', () => {
    expect(matchPolicy(policy, { toolName: 'read_file' }).rule.name).toBe('reads');
    expect(matchPolicy(policy, { toolName: 'search' }).rule.name).toBe('reads');
  });

  it('denies by tool and agent glob, and an agent that does not match falls through', () => {
    const denied = matchPolicy(policy, { toolName: 'shell', agentId: 'intern-7' });
    expect(denied.rule).toMatchObject({ name: 'no-shell', decision: 'deny', reason: 'interns do not get a shell' });
    expect(matchPolicy(policy, { toolName: 'shell', agentId: 'release-bot' }).rule.name).toBe('default');
    expect(matchPolicy(policy, { toolName: 'shell' }).rule.name).toBe('default');
  });

  it('evaluates when over the args: numbers and regex matches', () => {
    expect(matchPolicy(policy, { toolName: 'payments.send', toolArgs: { amount: 60000 } }).rule.name).toBe(
      'big-payments',
    );
    expect(matchPolicy(policy, { toolName: 'payments.send', toolArgs: { amount: 49999.5 } }).rule.name).toBe('default');
    expect(matchPolicy(policy, { toolName: 'bash', toolArgs: { command: 'git push origin main' } }).rule.name).toBe(
      'pushes',
    );
    expect(matchPolicy(policy, { toolName: 'bash', toolArgs: { command: 'ls; git push' } }).rule.name).toBe('default');
  });

  it('a when that cannot be evaluated (missing key) does not match, and says why', () => {
    const m = matchPolicy(policy, { toolName: 'payments.send', toolArgs: {} }, true);
    expect(m.rule.name).toBe('default');
    expect(m.explanation.find((l) => l.startsWith('big-payments'))).toMatch(
      /could not be evaluated .*No such key: amount/,
    );
  });

  it('matches metadata values (any of a list) and user globs', () => {
    expect(
      matchPolicy(policy, { toolName: 'deploy', userId: 'ops-ann', metadata: { env: 'production' } }).rule.name,
    ).toBe('prod');
    expect(matchPolicy(policy, { toolName: 'deploy', userId: 'ops-ann', metadata: { env: 'staging' } }).rule.name).toBe(
      'default',
    );
  });

  it('explains each rule looked at, in order', () => {
    const m = matchPolicy(policy, { toolName: 'payments.send', toolArgs: { amount: 70000 } }, true);
    expect(m.explanation).toEqual([
      'reads: no — tool "payments.send" is not read_* or search',
      'no-shell: no — tool "payments.send" is not shell',
      'big-payments: matches (tool "payments.*", when "args.amount > 50000")',
    ]);
  });

  it('an empty policy asks for everything', () => {
    expect(matchPolicy(loadPolicy({}, 'x.yaml'), { toolName: 'anything' }).rule).toEqual({
      name: 'default',
      decision: 'ask',
    });
  });
});

describe('routeByRule: a request may tighten its rule, never loosen it', () => {
  const rule = policy.rules[2]!; // big-payments: 2 approvals of slack:U0CFO / web:controller, 1 h, deny on timeout
  it('the rule’s approvers and channels win over the request’s', () => {
    const routed = routeByRule(rule, {
      toolName: 'payments.send',
      approvers: ['web:mallory'],
      requiredApprovals: 1,
      onTimeout: 'approve',
      timeoutS: 86_400,
    });
    expect(routed).toMatchObject({
      approvers: ['slack:U0CFO', 'web:controller'],
      requiredApprovals: 2,
      onTimeout: 'deny',
      timeoutS: 3600,
    });
  });
  it('more approvals and a shorter timeout from the request are kept', () => {
    expect(routeByRule(rule, { toolName: 'p', requiredApprovals: 3, timeoutS: 60 })).toMatchObject({
      requiredApprovals: 3,
      timeoutS: 60,
    });
  });
  it('on_timeout approve holds only when neither says deny', () => {
    const lenient = { ...rule, on_timeout: 'approve' as const };
    expect(routeByRule(lenient, { toolName: 'p' }).onTimeout).toBe('approve');
    expect(routeByRule(lenient, { toolName: 'p', onTimeout: 'deny' }).onTimeout).toBe('deny');
    expect(routeByRule(policy.default, { toolName: 'p', onTimeout: 'approve' }).onTimeout).toBe('approve');
  });
  it('a rule without approvers keeps the request’s', () => {
    expect(routeByRule(policy.rules[4]!, { toolName: 'deploy', approvers: ['web:alice'] })).toMatchObject({
      approvers: ['web:alice'],
      channels: [{ type: 'slack', target: 'C0OPS' }],
    });
  });
});
