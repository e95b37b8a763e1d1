/**
 * @module cli/policy
 * `tollgate policy suggest …` is `policy-suggest.ts`, `tollgate policy simulate …` `policy-simulate.ts`.
 * `tollgate policy test --tool NAME [--args JSON] [--agent A] [--user U] [--session S] [--metadata JSON] [--config F]`:
 * loads the policy the way `serve` does (a bad rule fails the same way) and says which rule a request would meet,
 * why each rule before it did not match, and how the request would be routed. Offline: standing grants, which live
 * in the database, are not consulted.
 */
import { readConfigFile } from '../config.js';
import { findConfigFile } from './config-file.js';
import { loadPolicy, matchPolicy, routeByRule, type PolicyFacts } from '../policy/index.js';
import { flag, parseArgs, UsageError, type ParsedArgs } from './args.js';

/** Runs `tollgate policy …`; resolves with the exit code. */
export async function run(
  argv: string[],
  out: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'suggest') return (await import('./policy-suggest.js')).suggest(rest, out);
  if (sub === 'simulate') return (await import('./policy-simulate.js')).simulateCommand(rest, out);
  if (sub !== 'test')
    throw new UsageError(
      sub
        ? `unknown subcommand "${sub}" (test, suggest or simulate)`
        : 'say what to do: tollgate policy test|suggest|simulate …',
    );
  const args = parseArgs(rest, {
    values: ['config', 'tool', 'args', 'agent', 'user', 'session', 'agent-kind', 'repo', 'cwd', 'metadata'],
    booleans: ['json'],
  });
  const configPath = findConfigFile(flag(args, 'config')).path;
  if (!configPath)
    throw new UsageError('--config: no config file (pass --config FILE, set TOLLGATE_CONFIG, or add ./tollgate.yaml)');
  const tool = flag(args, 'tool');
  if (!tool) throw new UsageError('--tool is required');
  const policy = loadPolicy(readConfigFile(configPath), configPath);
  const facts: PolicyFacts = {
    toolName: tool,
    toolArgs: jsonObjectFlag(args, 'args'),
    agentId: flag(args, 'agent'),
    userId: flag(args, 'user'),
    sessionId: flag(args, 'session'),
    agentKind: flag(args, 'agent-kind'),
    context: { repo: flag(args, 'repo') ?? null, cwd: flag(args, 'cwd') ?? null },
    metadata: jsonObjectFlag(args, 'metadata'),
  };
  const { rule, explanation } = matchPolicy(policy, facts, true);
  const decision = rule.decision ?? 'ask';
  const routed = decision === 'ask' ? routeByRule(rule, { ...facts, context: undefined }) : null;
  if (flag(args, 'json') === 'true') {
    out(
      `${JSON.stringify({ rule: rule.name, decision, explanation, ...(routed ? { approvers: routed.approvers ?? [], channels: routed.channels ?? null, required_approvals: routed.requiredApprovals ?? 1, timeout_s: routed.timeoutS ?? null, on_timeout: routed.onTimeout ?? null } : { reason: rule.reason ?? null }), grants: rule.grants ?? [] })}\n`,
    );
    return 0;
  }
  const lines = [
    `${tool}: rule "${rule.name}" → ${decision}${rule.name === 'default' ? ' (no rule matched)' : ''}`,
    '',
    'Rules in order:',
    ...explanation.map((l) => `  ${l}`),
  ];
  if (decision === 'deny' && rule.reason) lines.push('', `The agent is told: ${rule.reason}`);
  if (routed) {
    lines.push(
      '',
      'Asked as:',
      `  approvers          ${routed.approvers?.join(', ') || 'anyone who can see the card (the request may name them)'}`,
      `  required_approvals ${routed.requiredApprovals ?? 1}`,
      `  channels           ${routed.channels?.map((c) => (c.target ? `${c.type}:${c.target}` : c.type)).join(', ') ?? 'the request’s, else the configured defaults'}`,
      `  timeout_s          ${routed.timeoutS ?? 'the request’s, else the configured default'}${routed.onTimeout ? ` (on_timeout ${routed.onTimeout})` : ''}`,
    );
    if (rule.remind_after_s !== undefined) lines.push(`  reminds after      ${rule.remind_after_s} s`);
    for (const step of rule.escalate ?? [])
      lines.push(
        `  escalates after    ${step.after_s} s: adds ${[...(step.approvers ?? []), ...(step.channels ?? []).map((c) => (c.target ? `${c.type}:${c.target}` : c.type))].join(', ') || 'nothing'}`,
      );
    if (Array.isArray(rule.grants))
      lines.push(
        `  grants offered     ${rule.grants.map((g) => `"${g.label}" (${g.ttl_s} s, scope ${g.scope.join(', ')})`).join('; ')}`,
      );
    else if (rule.grants === 'none') lines.push('  grants offered     none (grants: none)');
  }
  out(`${lines.join('\n')}\n`);
  return 0;
}

function jsonObjectFlag(args: ParsedArgs, name: string): Record<string, unknown> | undefined {
  const raw = flag(args, name);
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`--${name}: not JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`--${name}: expected a JSON object, like '{"amount": 120}'`);
  return value as Record<string, unknown>;
}
