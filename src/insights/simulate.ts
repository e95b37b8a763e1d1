/**
 * @module insights/simulate
 * A candidate policy replayed over the history (`POST /v1/policy/simulate`, `tollgate policy simulate`): each request
 * of the window, streamed a page at a time from the store's `replay` (the few columns a replay reads, JSON decoded
 * only when a rule looks at it), is matched against the candidate as it would have been when filed, and compared
 * with what happened to it. Memory stays bounded: counts, and at most
 * {@link LISTED} requests a person denied that the candidate would have allowed at once (the list a reviewer reads
 * first).
 *
 * @remarks Offline like `tollgate policy test`: standing grants are not consulted, and a request is matched on its
 * stored facts (tool, arguments, agent, user, session, coding agent and its context, metadata).
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { ValidationError } from '../api/errors.js';
import { loadPolicy, matchPolicy, routeByRule, type Policy } from '../policy/index.js';
import { MAX_YAML_BYTES, MAX_YAML_DEPTH, yamlNestingDepth } from '../utils/yaml-bounds.js';
import { factsOf } from './suggestions.js';
import type { ReplayRow } from './types.js';

/** The most denied-but-would-allow requests listed (all are counted). */
export const LISTED = 100;

/** How a request was, or would be, settled. */
type Outcome = 'auto_allow' | 'auto_deny' | 'ask';

/** `POST /v1/policy/simulate`'s body (contract, with the totals beside it). */
export interface SimulationJson {
  since: string;
  until: string;
  replayed: number;
  /** What the candidate would do with the replayed requests. */
  would: Record<Outcome, number>;
  /** Requests whose handling would change: now settled at once by allow / deny, now asked, asked of other people. */
  changed: { auto_allow: number; auto_deny: number; ask: number; rerouted: number };
  /** Requests a person denied that the candidate allows at once, newest first (at most {@link LISTED}). */
  denied_but_would_allow: {
    id: string;
    tool_name: string;
    agent_id: string | null;
    responded_by_person: string | null;
    reason: string | null;
    rule: string;
    created_at: string;
  }[];
  /** All of them (the list stops at {@link LISTED}). */
  denied_but_would_allow_total: number;
  /** Requests per candidate rule that would decide them (`default` when none matches). */
  by_rule: Record<string, number>;
}

/**
 * The candidate policy in `yaml` (a config file's text; only `policies:` and `default:` are read), compiled.
 * @throws ValidationError naming the file's entry (`candidate: policies[2] "x".match.when: …`).
 */
export function loadCandidate(yaml: string, source = 'candidate'): Policy {
  // Bounded before parsing: a small body of nested brackets costs the parser seconds, or all its memory.
  if (Buffer.byteLength(yaml) > MAX_YAML_BYTES)
    throw new ValidationError(`${source}: larger than ${MAX_YAML_BYTES / 1024} KB`, [
      { path: source, message: `larger than ${MAX_YAML_BYTES / 1024} KB` },
    ]);
  if (yamlNestingDepth(yaml) > MAX_YAML_DEPTH)
    throw new ValidationError(`${source}: nested deeper than ${MAX_YAML_DEPTH} levels`, [
      { path: source, message: `nested deeper than ${MAX_YAML_DEPTH} levels` },
    ]);
  let sections: unknown;
  try {
    sections = (createRequire(import.meta.url)('yaml') as typeof Yaml).parse(yaml) ?? {};
  } catch (error) {
    throw new ValidationError(`${source}: not YAML: ${(error as Error).message}`, [
      { path: source, message: 'not YAML' },
    ]);
  }
  if (typeof sections !== 'object' || Array.isArray(sections))
    throw new ValidationError(`${source}: expected a mapping with policies: and default:`, [
      { path: source, message: 'expected a mapping' },
    ]);
  return loadPolicy(sections as { policies?: unknown; default?: unknown }, source);
}

/** How `r` was settled: by a rule's verdict or a grant at filing, else a person (or the clock) was asked. */
function actualOutcome(r: ReplayRow): Outcome {
  if (r.respondedVia === 'policy') return r.status === 'approved' ? 'auto_allow' : 'auto_deny';
  if (r.respondedVia === 'grant') return 'auto_allow';
  return 'ask';
}

/** Whether two approver lists name the same accounts (a rule that sets none hands the request's own list back). */
const sameSet = (a: readonly string[], b: readonly string[]) =>
  a === b || (a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n'));

/** Replays `pages` of rows (newest first, streamed) through `candidate`. */
export async function simulate(
  candidate: Policy,
  pages: AsyncIterable<readonly ReplayRow[]>,
  window: { since: Date; until: Date },
): Promise<SimulationJson> {
  const report: SimulationJson = {
    since: window.since.toISOString(),
    until: window.until.toISOString(),
    replayed: 0,
    would: { auto_allow: 0, auto_deny: 0, ask: 0 },
    changed: { auto_allow: 0, auto_deny: 0, ask: 0, rerouted: 0 },
    denied_but_would_allow: [],
    denied_but_would_allow_total: 0,
    by_rule: {},
  };
  // Per rule, counted in a map and copied out once: a property per rule name on a plain object is a dictionary lookup.
  const byRule = new Map<string, number>();
  for await (const page of pages) {
    for (const r of page) replayOne(candidate, r, report, byRule);
  }
  for (const [name, n] of byRule) report.by_rule[name] = n;
  return report;
}

/** Counts what `candidate` would do with `r` into `report`. */
function replayOne(candidate: Policy, r: ReplayRow, report: SimulationJson, byRule: Map<string, number>): void {
  report.replayed++;
  const { rule } = matchPolicy(candidate, factsOf(r));
  const would: Outcome = rule.decision === 'allow' ? 'auto_allow' : rule.decision === 'deny' ? 'auto_deny' : 'ask';
  report.would[would]++;
  byRule.set(rule.name, (byRule.get(rule.name) ?? 0) + 1);
  const was = actualOutcome(r);
  if (would !== was) report.changed[would]++;
  else if (would === 'ask' && (rule.approvers !== undefined || rule.required_approvals !== undefined)) {
    // Asked both times: asked of other people, or of more of them, is a change of routing. routeByRule changes who is
    // asked only from a rule's approvers and quorum, so a rule that sets neither routes as before (and its rows'
    // approver lists are never decoded).
    const routed = routeByRule(rule, {
      toolName: r.toolName,
      approvers: r.approvers,
      requiredApprovals: r.requiredApprovals,
    });
    if (!sameSet(routed.approvers ?? [], r.approvers) || (routed.requiredApprovals ?? 1) !== r.requiredApprovals)
      report.changed.rerouted++;
  }
  if (would === 'auto_allow' && r.status === 'denied' && r.respondedByPerson !== null) {
    report.denied_but_would_allow_total++;
    if (report.denied_but_would_allow.length < LISTED) {
      report.denied_but_would_allow.push({
        id: r.id,
        tool_name: r.toolName,
        agent_id: r.agentId,
        responded_by_person: r.respondedByPerson,
        reason: r.reason,
        rule: rule.name,
        created_at: r.createdAt,
      });
    }
  }
}
