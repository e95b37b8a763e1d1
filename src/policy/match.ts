/**
 * @module policy/match
 * First match wins: the rules in order, then `default:`. A rule matches when every field of its `match` does;
 * a `when` that cannot be evaluated for this request (a key the arguments lack, say) does not match, so a request
 * the author did not foresee falls through to the next rule and, at worst, to `default:` (ask, unless configured).
 */
import { matchesAny } from '../utils/patterns.js';
import type { WhenContext } from './expression.js';
import { budgetLeft, PolicyBudgetError, POLICY_BUDGET_MS, withPolicyBudget } from './regex.js';
import type { Policy, PolicyFacts, PolicyMatch, PolicyRule } from './types.js';

/**
 * The rule that decides `facts`.
 * @param explain also say, rule by rule, why each did or did not match (for `tollgate policy test`).
 * @example matchPolicy(policy, { toolName: 'payments.send', toolArgs: { amount: 60000 } }).rule.name // 'big-payments'
 */
export function matchPolicy(policy: Policy, facts: PolicyFacts, explain = false): PolicyMatch {
  return withPolicyBudget(() => firstMatch(policy, facts, explain));
}

function firstMatch(policy: Policy, facts: PolicyFacts, explain: boolean): PolicyMatch {
  const explanation: string[] = [];
  let context: WhenContext | null = null;
  for (const rule of policy.rules) {
    let miss: string | null;
    try {
      budgetLeft();
      miss = mismatch(rule, facts, () => (context ??= whenContext(facts)));
    } catch (error) {
      if (!(error instanceof PolicyBudgetError)) throw error;
      // A rule skipped for time might have been the deny: never fall through to an allow. Ask, unless default denies.
      explanation.push(`${rule.name}: not evaluated — ${error.message} (budget ${POLICY_BUDGET_MS} ms); asking`);
      const decision = policy.default.decision === 'deny' ? 'deny' : 'ask';
      return { rule: { ...policy.default, decision }, explanation };
    }
    if (miss === null) {
      if (explain) explanation.push(`${rule.name}: matches (${describeMatch(rule)})`);
      return { rule, explanation };
    }
    if (explain) explanation.push(`${rule.name}: no — ${miss}`);
  }
  if (explain) explanation.push('default: no rule matched');
  return { rule: policy.default, explanation };
}

/** Why `rule` does not match, or null when it does. */
function mismatch(rule: PolicyRule, facts: PolicyFacts, context: () => WhenContext): string | null {
  const { tool, agent, user, session, agent_kind, repo, cwd, metadata } = rule.match;
  if (tool !== undefined && !matchesAny(facts.toolName, list(tool)))
    return `tool "${facts.toolName}" is not ${list(tool).join(' or ')}`;
  for (const [label, patterns, value] of [
    ['agent', agent, facts.agentId],
    ['user', user, facts.userId],
    ['session', session, facts.sessionId],
    ['agent_kind', agent_kind, facts.agentKind],
    ['repo', repo, facts.context?.repo ?? undefined],
    ['cwd', cwd, facts.context?.cwd ?? undefined],
  ] as const) {
    if (patterns === undefined) continue;
    if (value === undefined) return `the request names no ${label}`;
    if (!matchesAny(value, list(patterns))) return `${label} "${value}" is not ${list(patterns).join(' or ')}`;
  }
  for (const [key, expected] of Object.entries(metadata ?? {})) {
    const actual = facts.metadata?.[key];
    const wanted = Array.isArray(expected) ? expected : [expected];
    if (!wanted.some((w) => w === actual))
      return `metadata.${key} is ${JSON.stringify(actual) ?? 'absent'}, not ${wanted.map((w) => JSON.stringify(w)).join(' or ')}`;
  }
  if (rule.when) {
    try {
      if (!rule.when.evaluate(context())) return `when "${rule.when.source}" is false`;
    } catch (error) {
      if (error instanceof PolicyBudgetError) throw error;
      return `when "${rule.when.source}" could not be evaluated (${(error as Error).message})`;
    }
  }
  return null;
}

function list(value: string | string[]): string[] {
  return Array.isArray(value) ? value : [value];
}

function describeMatch(rule: PolicyRule): string {
  const parts = Object.entries(rule.match).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  if (rule.when) parts.push(`when "${rule.when.source}"`);
  return parts.length ? parts.join(', ') : 'matches every request';
}

/** The variables a `when` expression sees. */
export function whenContext(facts: PolicyFacts): WhenContext {
  return {
    args: facts.toolArgs ?? {},
    tool_name: facts.toolName,
    agent_id: facts.agentId ?? null,
    user_id: facts.userId ?? null,
    session_id: facts.sessionId ?? null,
    metadata: facts.metadata ?? {},
    risk: facts.summary?.risk ?? null,
    risk_reasons: facts.summary?.risk_reasons.map((r) => r.code) ?? [],
  };
}
