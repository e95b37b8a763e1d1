/**
 * @module policy/types
 * A loaded approval policy: rules in order, each with its compiled `when`, and the `default:` rule.
 */
import type { CompiledWhen } from './expression.js';
import type { DefaultRuleConfig, RuleConfig } from './schema.js';
import type { CallSummary } from '../summaries/types.js';

export type { EscalationStep, GrantOffer } from './schema.js';

/** What a rule decides. */
export type PolicyDecision = 'allow' | 'deny' | 'ask';

/** One rule, ready to match: its YAML fields plus the compiled `when`. */
export interface PolicyRule extends Omit<RuleConfig, 'match'> {
  match: Omit<RuleConfig['match'], 'when'>;
  /** The compiled `match.when`, or null. */
  when: CompiledWhen | null;
}

/** The rule used when none matches; `name` is `default`. */
export interface DefaultRule extends DefaultRuleConfig {
  name: 'default';
}

/** A loaded policy. An empty one asks for every request, as tollgate did before policies. */
export interface Policy {
  rules: PolicyRule[];
  default: DefaultRule;
  /** Where it was read from (a file path), for logs and errors. */
  source: string;
}

/** The facts of a request a rule matches on (a subset of `NewRequestInput`). */
export interface PolicyFacts {
  toolName: string;
  toolArgs?: Record<string, unknown>;
  agentId?: string;
  userId?: string;
  sessionId?: string;
  /** The coding agent that asked (`tollgate hook <agent>`). */
  agentKind?: string;
  /** Where it was working (`repo`, `cwd`; null: unknown). */
  context?: { repo?: string | null; cwd?: string | null } | null;
  metadata?: Record<string, unknown>;
  /** What the call will do (`summaries/`): `when:` expressions read its `risk` and `risk_reasons` codes. */
  summary?: CallSummary;
}

/** Which rule a request matched, and (when asked) why the ones before it did not. */
export interface PolicyMatch {
  rule: PolicyRule | DefaultRule;
  /** One line per rule looked at, in order: why it did or did not match. Empty unless explanations were asked for. */
  explanation: string[];
}

/** The policy that asks for everything (no rules, `default: {decision: ask}`). */
export function emptyPolicy(source = '(none)'): Policy {
  return { rules: [], default: { name: 'default', decision: 'ask' }, source };
}
