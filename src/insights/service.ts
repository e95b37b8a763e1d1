/**
 * @module insights/service
 * What the gateway offers transports about its history: the report of `GET /v1/insights`, the rules it suggests
 * (`GET /v1/insights/suggestions`) and their application as standing grants, read from the store in SQL and shaped
 * once for every store; and a candidate policy replayed over it (`POST /v1/policy/simulate`).
 */
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../api/errors.js';
import type { Directory } from '../people/types.js';
import type { GrantStore } from '../policy/grants.js';
import { matchPolicy, type Policy } from '../policy/index.js';
import { uuidv7 } from '../requests/ids.js';
import type { ConfirmationRequest, NewEvent } from '../requests/types.js';
import { parseInput } from '../api/validation.js';
import { insightsWindow, parseInsightsQuery } from './query.js';
import { insightsReport, type InsightsJson } from './report.js';
import { InsightsRollup } from './refresh.js';
import { countsFromRows, readPlan } from './rollup.js';
import { PERCENTILE_RELATIVE_ERROR } from './sketch.js';
import { loadCandidate, simulate, type SimulationJson } from './simulate.js';
import { factsOf, pickCandidates, suggestionOf, type Suggestion, type SuggestionJson } from './suggestions.js';
import type { InsightsStore, SuggestionQuery } from './types.js';

/** What {@link Insights} reads from. */
export interface InsightsDeps {
  store: InsightsStore;
  /** The people directory in force (groups, for `by=group`). */
  directory: () => Directory;
  /** The gateway's clock, in ms (the default window ends now). */
  now: () => number;
  /** Denied requests of a tool filed in `[since, until)`, newest first, a bounded page of them (the nearest denied call). */
  denied: (toolName: string, since: Date, until: Date) => Promise<ConfirmationRequest[]>;
  /** One request by id. */
  request: (id: string) => Promise<ConfirmationRequest | null>;
  /** The policy in force and its grants (null: no grants can be applied). */
  policy: () => Policy | null;
  grants: GrantStore | null;
  /** Appends an audit event to a request (the gateway's `note`). */
  note: (requestId: string, event: NewEvent) => Promise<void>;
}

const isoDate = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const suggestionWindow = {
  since: isoDate.optional(),
  until: isoDate.optional(),
  min: z.coerce.number().int().min(1).max(100_000).default(10),
};
/** The query string of `GET /v1/insights/suggestions`. */
export const suggestionsQuerySchema = z.strictObject(suggestionWindow);
/** The body of `POST /v1/insights/suggestions/:id/apply`: the grant's lifetime, and the window the suggestion came from. */
export const applySuggestionSchema = z.strictObject({
  expires_in_s: z
    .int()
    .min(60)
    .max(90 * 86_400),
  ...suggestionWindow,
});

/** The query string of `POST /v1/policy/simulate`. */
export const simulateQuerySchema = z.strictObject({ since: isoDate.optional(), until: isoDate.optional() });

/** What applying a suggestion made. */
export interface AppliedSuggestion {
  grant: {
    id: string;
    rule: string;
    label: string;
    scope: Record<string, unknown>;
    request_id: string;
    expires_at: string;
  };
  suggestion: SuggestionJson;
}

/** The insights the gateway answers. */
export class Insights {
  /** The daily rollup answers come from, and its refresher (the gateway's sweep calls `refreshWhenDue`). */
  readonly rollup: InsightsRollup;

  constructor(private readonly deps: InsightsDeps) {
    this.rollup = new InsightsRollup(deps.store, deps.now);
  }

  /**
   * `GET /v1/insights` for the query string `raw`: the rollup's whole days and the rest read live (`rollup.ts`),
   * refreshing the rollup first when there is none. @throws ValidationError naming a bad field.
   */
  async report(raw: unknown): Promise<InsightsJson> {
    const query = parseInsightsQuery(raw, this.deps.now(), this.deps.directory());
    const state = await this.rollup.current();
    const rows = await this.deps.store.rollupRows(readPlan(query, state));
    return insightsReport(query, countsFromRows(query, rows), {
      asOf: state.refreshedAt,
      relativeError: PERCENTILE_RELATIVE_ERROR,
    });
  }

  /** `GET /v1/insights/suggestions` for the query string `raw` (default: the last 30 days, at least 10 approvals). */
  async suggestions(raw: unknown): Promise<SuggestionJson[]> {
    return (await this.suggest(parseInput(suggestionsQuerySchema, raw, 'query'))).map((s) => s.json);
  }

  /**
   * Makes suggestion `id` a standing grant for `by`, audited on the newest request it covers with the suggestion's
   * evidence. The grant belongs to the rule in force for those calls and matches them by equal values, so only a
   * fixed-value suggestion whose calls meet a rule that offers grants can become one; any other is a 409 saying why.
   * @throws NotFoundError when the window has no such suggestion now.
   */
  async apply(id: string, rawBody: unknown, by: string): Promise<AppliedSuggestion> {
    const body = parseInput(applySuggestionSchema, rawBody ?? {}, 'body');
    const found = (await this.suggest(body)).find((s) => s.json.id === id);
    if (!found)
      throw new NotFoundError(
        `no suggestion ${id} in this window (the history may have changed: list the suggestions again)`,
      );
    const { candidate, json } = found;
    if (!json.grantable)
      throw new ConflictError(
        `suggestion ${id} matches ${candidate.key} by its leading words, and a standing grant matches equal values only: put its rule in the policy file instead`,
      );
    const policy = this.deps.policy();
    if (!this.deps.grants || !policy)
      throw new ConflictError('standing grants are not available on this gateway (no policy or grant store)');
    const sample = await this.deps.request(candidate.sampleRequestId);
    if (!sample) throw new NotFoundError(`request ${candidate.sampleRequestId} is gone`);
    const rule = matchPolicy(policy, factsOf(sample)).rule;
    if (!Array.isArray(rule.grants) || rule.grants.length === 0) {
      throw new ConflictError(
        `these calls meet rule "${rule.name}", which offers no grants${rule.grants === 'none' ? ' (grants: none)' : ''}: give it a grants: entry, or put the suggested rule in the policy file`,
      );
    }
    const at = new Date(this.deps.now());
    const scope = {
      tool_name: candidate.toolName,
      agent_id: candidate.agentId,
      [`args.${candidate.key}`]: candidate.value,
    };
    const grant = await this.deps.grants.create({
      id: uuidv7(at.getTime()),
      rule: rule.name,
      label: `Suggestion ${id}`,
      scope,
      requestId: sample.id,
      createdBy: by,
      createdAt: at,
      expiresAt: new Date(at.getTime() + body.expires_in_s * 1000),
    });
    const evidence = {
      id,
      would_auto_approve: json.would_auto_approve,
      approver_minutes_saved: json.approver_minutes_saved,
      approvers: json.approvers,
      nearest_denied: json.nearest_denied?.id ?? null,
    };
    await this.deps.note(sample.id, {
      type: 'grant_created',
      actor: by,
      channel: by.split(':')[0] ?? null,
      detail: {
        grant: grant.id,
        label: grant.label,
        rule: grant.rule,
        scope,
        expires_at: grant.expiresAt.toISOString(),
        suggestion: evidence,
      },
      at,
    });
    return {
      grant: {
        id: grant.id,
        rule: grant.rule,
        label: grant.label,
        scope,
        request_id: sample.id,
        expires_at: grant.expiresAt.toISOString(),
      },
      suggestion: json,
    };
  }

  /**
   * `POST /v1/policy/simulate`: the candidate policy in `yaml` replayed over the window in `raw` (default: the last 30
   * days). @throws ValidationError naming the candidate's entry that does not load, or a bad window field.
   */
  async simulate(yaml: string, raw: unknown): Promise<SimulationJson> {
    const window = insightsWindow(parseInput(simulateQuerySchema, raw, 'query'), this.deps.now());
    return simulate(loadCandidate(yaml), this.deps.store.replay(window), window);
  }

  /** The suggestions of a window, each with its nearest denied call (one bounded read per tool). */
  private async suggest(q: { since?: Date; until?: Date; min: number }): Promise<Suggestion[]> {
    const query: SuggestionQuery = { ...insightsWindow(q, this.deps.now()), min: q.min };
    const picked = pickCandidates(await this.deps.store.suggestionCandidates(query));
    const denied = new Map<string, Promise<ConfirmationRequest[]>>();
    const out: Suggestion[] = [];
    for (const c of picked) {
      if (!denied.has(c.toolName)) denied.set(c.toolName, this.deps.denied(c.toolName, query.since, query.until));
      const suggestion = suggestionOf(c, await denied.get(c.toolName)!);
      if (suggestion) out.push(suggestion);
    }
    return out;
  }
}
