/**
 * @module insights/suggestions
 * Policy rules the history suggests (`GET /v1/insights/suggestions`, `tollgate policy suggest`): each repeating call a
 * store found (`SuggestionCandidate`) becomes one `allow` rule in the YAML the config file accepts, with its evidence.
 * A rule is never applied by itself; each one is loaded through the real policy loader before it is offered, so what
 * is offered is what `tollgate serve` would load.
 *
 * What a rule matches: the agent (exactly), the tool (exactly), and the argument — its one value when every call had
 * the same (`args["k"] == "…"`), else its leading word(s) (`args["k"].matches("^ *git +status( |$)")`). A prefix rule
 * also refuses any value holding a shell metacharacter or a line break, so "ls" never covers `ls; rm -rf /` or
 * `ls && curl … | sh`: a shell command that chains or substitutes another is asked, as before.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { loadPolicy, matchPolicy, type Policy, type PolicyFacts } from '../policy/index.js';
import type { ConfirmationRequest } from '../requests/types.js';
import type { ReplayRow, SuggestionCandidate } from './types.js';

/** Characters that let a shell run something else: a prefix rule never matches a value holding one. */
const SHELL_METACHARACTERS = '[;&|`$<>(){}\\\\\\n\\r]';
/** Glob metacharacters: a name holding one is matched exactly in `when` instead of as a glob. */
const GLOB = /[*?[\]]/;

/** One suggestion as the API answers it (contract). */
export interface SuggestionJson {
  /** Stable for the same call shape: `POST /v1/insights/suggestions/:id/apply` finds it again by it. */
  id: string;
  /** One policy rule, YAML, ready to paste under `policies:`. */
  rule: string;
  would_auto_approve: number;
  approver_minutes_saved: number;
  approvers: string[];
  /** A denied call of the same tool the rule does not cover (the newest), or null when there is none. */
  nearest_denied: {
    id: string;
    tool_name: string;
    agent_id: string | null;
    tool_args: Record<string, unknown>;
    responded_by_person: string | null;
    reason: string | null;
    created_at: string;
  } | null;
  /** What the rule matches, in words. */
  summary: string;
  /** Whether `apply` can make it a standing grant (a grant matches equal values: a fixed value only). */
  grantable: boolean;
}

/** A suggestion with what `apply` needs beside its JSON. */
export interface Suggestion {
  json: SuggestionJson;
  candidate: SuggestionCandidate;
  /** The rule as the loader compiled it. */
  policy: Policy;
}

/** The rule of `c`, as the config file's YAML would hold it (an object for the YAML writer). */
export function ruleOf(c: SuggestionCandidate, id: string): Record<string, unknown> {
  const arg = `args[${JSON.stringify(c.key)}]`;
  const conditions: string[] = [];
  const match: Record<string, unknown> = {};
  if (GLOB.test(c.toolName)) conditions.push(`tool_name == ${JSON.stringify(c.toolName)}`);
  else match.tool = c.toolName;
  if (c.agentId === null) conditions.push('agent_id == null');
  else if (GLOB.test(c.agentId)) conditions.push(`agent_id == ${JSON.stringify(c.agentId)}`);
  else match.agent = c.agentId;
  conditions.push(`${JSON.stringify(c.key)} in args`);
  if (c.value !== null) conditions.push(`${arg} == ${JSON.stringify(c.value)}`);
  else {
    const words = c.prefix.split(' ').map(escapeRegExp).join(' +');
    conditions.push(
      `${arg}.matches(${JSON.stringify(`^ *${words}( |$)`)})`,
      `!${arg}.matches(${JSON.stringify(SHELL_METACHARACTERS)})`,
    );
  }
  match.when = conditions.join(' && ');
  return { name: `suggested-${id}`, match, decision: 'allow' };
}

/** The id of `c`'s suggestion: a hash of what its rule matches. */
export function suggestionId(c: SuggestionCandidate): string {
  const shape = JSON.stringify([
    c.agentId,
    c.toolName,
    c.key,
    c.value === null ? ['prefix', c.prefix] : ['value', c.value],
  ]);
  return createHash('sha256').update(shape).digest('hex').slice(0, 12);
}

/**
 * The candidates worth suggesting: a two-word shape is left out when its first word qualifies alone (the shorter rule
 * covers it), and of an agent's tool only the argument whose shapes cover the most approvals is kept (a shell tool's
 * `command`, not its free-text `description`).
 */
export function pickCandidates(candidates: readonly SuggestionCandidate[]): SuggestionCandidate[] {
  const call = (c: SuggestionCandidate) => JSON.stringify([c.agentId, c.toolName]);
  const oneWord = new Set(
    candidates.filter((c) => c.words === 1).map((c) => JSON.stringify([c.agentId, c.toolName, c.key, c.prefix])),
  );
  const kept = candidates.filter(
    (c) => c.words === 1 || !oneWord.has(JSON.stringify([c.agentId, c.toolName, c.key, c.prefix.split(' ')[0]])),
  );
  const byKey = new Map<string, number>();
  for (const c of kept)
    byKey.set(
      JSON.stringify([c.agentId, c.toolName, c.key]),
      (byKey.get(JSON.stringify([c.agentId, c.toolName, c.key])) ?? 0) + c.approvals,
    );
  const bestKey = new Map<string, string>();
  for (const c of kept) {
    const best = bestKey.get(call(c));
    const total = (k: string) => byKey.get(JSON.stringify([c.agentId, c.toolName, k])) ?? 0;
    if (best === undefined || total(c.key) > total(best) || (total(c.key) === total(best) && c.key < best))
      bestKey.set(call(c), c.key);
  }
  return kept
    .filter((c) => bestKey.get(call(c)) === c.key)
    .sort(
      (a, b) =>
        b.approvals - a.approvals ||
        cmp(a.toolName, b.toolName) ||
        cmp(a.agentId ?? '', b.agentId ?? '') ||
        cmp(a.prefix, b.prefix),
    );
}

/**
 * `c` as a suggestion, its rule loaded through the policy loader; `denied` are denied calls of the same tool, newest
 * first, of which the first the rule does not match is named. Null when the rule would not load (never expected).
 */
export function suggestionOf(c: SuggestionCandidate, denied: readonly ConfirmationRequest[]): Suggestion | null {
  const id = suggestionId(c);
  const rule = ruleOf(c, id);
  let policy: Policy;
  try {
    policy = loadPolicy({ policies: [rule] }, 'suggestion');
  } catch {
    return null;
  }
  const other = denied.find((r) => matchPolicy(policy, factsOf(r)).rule.name === 'default');
  const yaml = (createRequire(import.meta.url)('yaml') as typeof Yaml).stringify([rule], { lineWidth: 0 });
  const json: SuggestionJson = {
    id,
    rule: yaml,
    would_auto_approve: c.approvals,
    approver_minutes_saved: Math.round(c.decisionMs / 6000) / 10,
    approvers: c.approvers,
    nearest_denied: other
      ? {
          id: other.id,
          tool_name: other.toolName,
          agent_id: other.agentId,
          tool_args: other.toolArgs,
          responded_by_person: other.respondedByPerson,
          reason: other.reason,
          created_at: other.createdAt.toISOString(),
        }
      : null,
    summary: `${c.agentId ?? '(no agent)'} calling ${c.toolName} with ${c.key} ${c.value !== null ? `= "${c.value}"` : `starting "${c.prefix}"`}`,
    grantable: c.value !== null && !c.key.includes('.'),
  };
  return { json, candidate: c, policy };
}

/** What a policy matches of a filed request (a stored request, or a replay's row). */
export type FactsSource = Pick<
  ReplayRow,
  'toolName' | 'toolArgs' | 'agentId' | 'userId' | 'sessionId' | 'agentKind' | 'context' | 'metadata'
>;

/**
 * The facts a policy matches of a filed request, the coding agent's kind and context included. The JSON-valued facts
 * are read from `r` only when a rule looks at them, then kept (a replay's rows decode them on reading: most rows of a
 * replay meet no rule that reads their arguments). A class, not an object literal with getters: a replay makes one
 * per row, and accessors defined per object cost several times a constructor call.
 */
export function factsOf(r: FactsSource): PolicyFacts {
  return new LazyFacts(r);
}

class LazyFacts implements PolicyFacts {
  readonly toolName: string;
  readonly agentId: string | undefined;
  readonly userId: string | undefined;
  readonly sessionId: string | undefined;
  readonly agentKind: string | undefined;
  private args: Record<string, unknown> | undefined;
  private where: FactsSource['context'] | undefined;
  private meta: Record<string, unknown> | undefined;

  constructor(private readonly r: FactsSource) {
    this.toolName = r.toolName;
    this.agentId = r.agentId ?? undefined;
    this.userId = r.userId ?? undefined;
    this.sessionId = r.sessionId ?? undefined;
    this.agentKind = r.agentKind ?? undefined;
  }

  get toolArgs(): Record<string, unknown> {
    return (this.args ??= this.r.toolArgs);
  }

  get context(): FactsSource['context'] {
    if (this.where === undefined) this.where = this.r.context;
    return this.where;
  }

  get metadata(): Record<string, unknown> {
    return (this.meta ??= this.r.metadata);
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
