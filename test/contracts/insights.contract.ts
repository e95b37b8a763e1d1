/**
 * The insights contract suite: every {@link InsightsStore} answers the seeded history (`insights-history.ts`) with
 * the counts, rates, nearest-rank percentiles, fast approvals and days worked out from its specs. A dialect's test
 * file is a few lines, as the store contract's are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insightsReport } from '../../src/insights/report.js';
import type { InsightsDimension, InsightsQuery, InsightsStore, ReplayRow } from '../../src/insights/types.js';
import type { ConfirmationStore } from '../../src/requests/store.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { expectedDays, expectedRows, GROUPS, historySpecs, seedHistory, SINCE, UNTIL } from './insights-history.js';

/** A store with its insights reads, and how to throw them away. */
export interface InsightsHarness {
  store: ConfirmationStore;
  insights: InsightsStore;
  cleanup(): Promise<void>;
}

/** A replay row's plain columns (the same names on a stored request). */
const pick = (r: Omit<ReplayRow, 'toolArgs' | 'context' | 'metadata' | 'approvers'>) => {
  const {
    id,
    toolName,
    agentId,
    userId,
    sessionId,
    agentKind,
    requiredApprovals,
    status,
    respondedVia,
    respondedByPerson,
    reason,
    createdAt,
  } = r;
  return {
    id,
    toolName,
    agentId,
    userId,
    sessionId,
    agentKind,
    requiredApprovals,
    status,
    respondedVia,
    respondedByPerson,
    reason,
    createdAt,
  };
};

const PAIRS = Object.entries(GROUPS).flatMap(([group, people]) => people.map((p) => [p, group] as const));

/** Runs the insights contract against the stores `newStore` builds (one store, seeded once, for the whole suite). */
export function runInsightsContract(name: string, newStore: () => Promise<InsightsHarness>): void {
  describe(`insights contract: ${name}`, () => {
    let harness: InsightsHarness;
    let seeded: ConfirmationRequest[];
    const specs = historySpecs();
    const report = async (by: InsightsDimension, extra: Partial<InsightsQuery> = {}) => {
      const query: InsightsQuery = {
        since: SINCE,
        until: UNTIL,
        by,
        limit: 100,
        ...(by === 'group' ? { groups: PAIRS } : {}),
        ...extra,
      };
      return insightsReport(query, await harness.insights.insights(query));
    };

    beforeAll(async () => {
      harness = await newStore();
      seeded = await seedHistory(harness.store, specs);
    }, 60_000);
    afterAll(() => harness?.cleanup());

    it.each(['tool', 'agent', 'agent_kind', 'repo', 'person', 'approver', 'channel', 'risk', 'group', 'day'] as const)(
      "by=%s answers each group's counts, rates and percentiles",
      async (by) => {
        const { rows } = await report(by);
        expect(rows).toEqual(expectedRows(specs, by));
        // The seed is varied enough to mean something: several groups, some decided slowly, some fast.
        expect(rows.length).toBeGreaterThan(1);
      },
    );

    it('counts fast approvals per person, and percentiles from delivery (or filing when nothing was delivered before the verdict)', async () => {
      const rows = (await report('person')).rows;
      const shares = rows.filter((r) => r.key !== null).map((r) => r.fast_approvals);
      expect(shares.some((s) => s !== null && s > 0 && s < 1)).toBe(true);
      // Nobody decided the policy's, the clock's and the canceller's rows: they are the person-less group, with no times.
      expect(rows.find((r) => r.key === null)?.decision_ms).toEqual({ p50: null, p90: null, p99: null });
    });

    it('answers totals and every day of the window, oldest first, leaving out requests filed outside it', async () => {
      const { totals, series } = await report('tool');
      expect({ totals, series }).toEqual(expectedDays(specs));
      expect(totals.requests).toBe(specs.length - 2);
    });

    it('cuts the rows at the limit, largest first', async () => {
      const all = (await report('person')).rows;
      expect((await report('person', { limit: 2 })).rows).toEqual(all.slice(0, 2));
    });

    it('replays the window newest first, every row once across pages, with the facts a policy matches', async () => {
      const pages: ReplayRow[][] = [];
      for await (const page of harness.insights.replay({ since: SINCE, until: UNTIL }, 4)) pages.push([...page]);
      expect(pages.length).toBeGreaterThan(5);
      const stored = new Map((await harness.store.getMany(seeded.map((r) => r.id))).map((r) => [r.id, r]));
      const inWindow = [...stored.values()]
        .filter((r) => r.createdAt >= SINCE && r.createdAt < UNTIL)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
      const replayed = pages.flat();
      expect(replayed.map((r) => r.id)).toEqual(inWindow.map((r) => r.id));
      for (const row of replayed) {
        const r = stored.get(row.id)!;
        expect({
          ...pick(row),
          toolArgs: row.toolArgs,
          context: row.context,
          metadata: row.metadata,
          approvers: row.approvers,
        }).toEqual({
          ...pick({ ...r, createdAt: r.createdAt.toISOString() }),
          toolArgs: r.toolArgs,
          context: r.context,
          metadata: r.metadata,
          approvers: r.approvers,
        });
      }
      // The coding agents' facts arrive (a candidate may match agent_kind and repo).
      expect(replayed.some((r) => r.agentKind === 'claude' && r.context?.repo === 'acme/api')).toBe(true);
    });

    it('answers an empty window with zeros and no rows', async () => {
      const since = new Date(UNTIL.getTime() + 10 * 86_400_000);
      const empty = await report('tool', { since, until: new Date(since.getTime() + 86_400_000) });
      expect(empty.rows).toEqual([]);
      expect(empty.totals).toEqual({ requests: 0, approved: 0, denied: 0, expired: 0, cancelled: 0 });
      expect(empty.series).toHaveLength(1);
    });
  });
}
