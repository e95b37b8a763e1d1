/**
 * @module policy/gate
 * What the gateway asks when a request is filed: which rule applies, how it routes the request, and whether the
 * rule (allow/deny) or a standing grant settles it at once. Holds the current policy, swapped on reload.
 */
import { ValidationError, type FieldProblem } from '../api/errors.js';
import type { NewRequestInput } from '../requests/new-request.js';
import { routeByRule, policyDetail, type Settlement } from './apply.js';
import { grantCovers, type GrantStore } from './grants.js';
import { matchPolicy } from './match.js';
import { planFollowUps, type FollowUp } from './follow-ups.js';
import type { DefaultRule, Policy, PolicyRule } from './types.js';

/** The policy's answer for one request being filed. */
export interface Ruling {
  rule: PolicyRule | DefaultRule;
  /** The request as the rule routes it (approvers, channels, quorum, timeout). */
  input: NewRequestInput;
  /** The `created` event's detail. */
  detail: Record<string, unknown>;
  /** Set when the request is final at once (a rule's allow/deny, or a grant). */
  settlement: Settlement | null;
  /** Call once the settled row is written (counts a grant's use). */
  settled?: () => Promise<void>;
  /** Reminders and escalation steps planned for the request (also in `detail`), earliest first. */
  followUps: FollowUp[];
}

/** What a ruling came to, for metrics: the rule and `allow`, `deny`, `ask` or `grant` (settled by a standing grant). */
export interface RulingOutcome {
  rule: string;
  decision: 'allow' | 'deny' | 'ask' | 'grant';
}

/** The policy in force and the grants it may use. */
export class PolicyGate {
  private readonly listeners = new Set<(outcome: RulingOutcome) => void>();
  /**
   * @throws ValidationError when a rule sends cards to a channel this gateway has not enabled (checked again on
   * every {@link replace}).
   */
  constructor(
    private current: Policy,
    /** Standing grants; without a store, rules offer no grant buttons. */
    readonly grants: GrantStore | null = null,
    /** The enabled channels' names; when given, rules naming another channel are refused. */
    private readonly channels: readonly string[] | null = null,
  ) {
    this.checkChannels(current);
  }

  /** The policy in force. */
  get policy(): Policy {
    return this.current;
  }

  /** Puts a new policy in force (a reload); requests already filed keep the routing they got. */
  replace(policy: Policy): void {
    this.checkChannels(policy);
    this.current = policy;
  }

  /** A rule whose cards could not be sent would turn every request it matches into a 400 the agent cannot fix. */
  private checkChannels(policy: Policy): void {
    const enabled = this.channels;
    if (!enabled) return;
    const problems: FieldProblem[] = [];
    const check = (where: string, targets: readonly { type: string }[] | undefined) =>
      targets?.forEach((c, j) => {
        if (!enabled.includes(c.type))
          problems.push({
            path: `${where}.channels[${j}].type`,
            message: `channel "${c.type}" is not enabled (enabled: ${enabled.join(', ')})`,
          });
      });
    policy.rules.forEach((rule, i) => {
      const where = `${policy.source}: policies[${i}] "${rule.name}"`;
      check(where, rule.channels);
      rule.escalate?.forEach((step, k) => check(`${where}.escalate[${k}]`, step.channels));
    });
    check(`${policy.source}: default`, policy.default.channels);
    if (problems.length) throw new ValidationError(`${problems[0]!.path}: ${problems[0]!.message}`, problems);
  }

  /** The rule named `name` (or `default`), if the policy in force has it. */
  rule(name: string): PolicyRule | DefaultRule | undefined {
    return name === 'default' ? this.current.default : this.current.rules.find((r) => r.name === name);
  }

  /** Calls `listener` with the outcome of every ruling (the `/metrics` counter by rule); returns the unsubscribe. */
  onRuling(listener: (outcome: RulingOutcome) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Matches `input`, routes it, and settles it when its rule or a live grant says so. */
  async rulingFor(input: NewRequestInput, now: Date): Promise<Ruling> {
    const ruling = await this.decideFiling(input, now);
    const decision = ruling.settlement?.via === 'grant' ? 'grant' : (ruling.rule.decision ?? 'ask');
    for (const listener of this.listeners) listener({ rule: ruling.rule.name, decision });
    return ruling;
  }

  private async decideFiling(input: NewRequestInput, now: Date): Promise<Ruling> {
    const { rule } = matchPolicy(this.current, input);
    const detail = policyDetail(rule);
    if (rule.decision === 'allow' || rule.decision === 'deny') {
      const settlement: Settlement = {
        decision: rule.decision === 'allow' ? 'approve' : 'deny',
        actor: `policy:${rule.name}`,
        via: 'policy',
        reason: rule.reason ?? null,
        detail: { rule: rule.name },
      };
      return { rule, input, detail, settlement, followUps: [] };
    }
    const routed = routeByRule(rule, input);
    if (this.grants && Array.isArray(rule.grants) && rule.grants.length) {
      const grant = (await this.grants.active(rule.name, now)).find((g) => grantCovers(g, input));
      if (grant) {
        const grants = this.grants;
        const settlement: Settlement = {
          decision: 'approve',
          actor: `grant:${grant.id}`,
          via: 'grant',
          reason: `standing grant "${grant.label}" by ${grant.createdBy}`,
          detail: { rule: rule.name, grant: grant.id },
        };
        return { rule, input: routed, detail, settlement, settled: () => grants.recordUse(grant.id), followUps: [] };
      }
    }
    const followUps = planFollowUps(rule, now);
    if (followUps.length) (detail.policy as Record<string, unknown>).follow_ups = followUps;
    return { rule, input: routed, detail, settlement: null, followUps };
  }
}
