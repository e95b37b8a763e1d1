/**
 * The insights rollup against the exact computation, on each store: the seeded history (`insights-history.ts`) plus
 * a request filed on a rollup day and decided late. Each answer from the rollup (its whole days summed, the rest read
 * live) is held to the store's exact statement over every request on the same data: counts, rates, totals and days
 * equal, percentiles within the stated relative error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InsightsRollup } from '../../src/insights/refresh.js';
import { insightsReport } from '../../src/insights/report.js';
import { countsFromRows, readPlan } from '../../src/insights/rollup.js';
import { PERCENTILE_RELATIVE_ERROR } from '../../src/insights/sketch.js';
import type { InsightsDimension, InsightsQuery } from '../../src/insights/types.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import type { InsightsHarness } from './insights.contract.js';
import { GROUPS, historySpecs, seedHistory, SINCE, UNTIL, withinError } from './insights-history.js';
import { file } from './store-fixtures.js';

const PAIRS = Object.entries(GROUPS).flatMap(([group, people]) => people.map((p) => [p, group] as const));
const HOUR = 3_600_000;
/** "Now" is on the window's last day: it is today, read live; the two days before it are the rollup's. */
const NOW = new Date(UNTIL.getTime() - 12 * HOUR);
const DIMENSIONS = [
  'tool',
  'agent',
  'agent_kind',
  'repo',
  'person',
  'approver',
  'channel',
  'risk',
  'group',
  'day',
] as const;

/** Runs the rollup's contract against the stores `newStore` builds (one store, seeded once). */
export function runInsightsRollupContract(name: string, newStore: () => Promise<InsightsHarness>): void {
  describe(`insights rollup: ${name}`, () => {
    let harness: InsightsHarness;
    let late: ConfirmationRequest;
    let now = NOW.getTime();
    let rollup: InsightsRollup;
    const query = (by: InsightsDimension, since = SINCE, until = UNTIL): InsightsQuery => ({
      since,
      until,
      by,
      limit: 100,
      ...(by === 'group' ? { groups: PAIRS } : {}),
    });
    const exact = async (q: InsightsQuery) => insightsReport(q, await harness.insights.insights(q));
    const fromRollup = async (q: InsightsQuery) => {
      const state = await rollup.current();
      const read = readPlan(q, state);
      const rows = await harness.insights.rollupRows(read);
      return {
        read,
        answer: insightsReport(q, countsFromRows(q, rows), {
          asOf: state.refreshedAt,
          relativeError: PERCENTILE_RELATIVE_ERROR,
        }),
      };
    };
    /** The rollup's answer equals the exact one (percentiles within the error). */
    const expectSame = async (q: InsightsQuery) => {
      const [{ answer }, truth] = await Promise.all([fromRollup(q), exact(q)]);
      expect(answer.percentile_relative_error).toBe(0.01);
      const { as_of: _asOf, percentile_relative_error: _error, ...rest } = answer;
      const { as_of: _none, percentile_relative_error: _zero, ...expected } = truth;
      expect({ ...rest, rows: withinError(answer.rows, truth.rows, PERCENTILE_RELATIVE_ERROR) }).toEqual(expected);
      return answer;
    };

    beforeAll(async () => {
      harness = await newStore();
      await seedHistory(harness.store, historySpecs());
      // Filed on the first day (a rollup day) and left pending across the refresh: decided late, below.
      late = await file(
        harness.store,
        { toolName: 'deploy', agentId: 'ops', toolArgs: { late: true }, timeoutS: 3 * 86_400 },
        new Date(SINCE.getTime() + 20 * HOUR),
      );
      rollup = new InsightsRollup(harness.insights, () => now);
    }, 60_000);
    afterAll(() => harness?.cleanup());

    it('builds the rollup on demand: every day before today, with the oldest day still open', async () => {
      const state = await rollup.current();
      expect(state.through).toBe(NOW.toISOString().slice(0, 10));
      expect(state.refreshedAt.getTime()).toBeLessThanOrEqual(now);
    });

    it.each(DIMENSIONS)('by=%s: the rollup days and today read live answer as the exact computation', async (by) => {
      await rollup.refresh();
      const q = query(by);
      const { read } = await fromRollup(q);
      // The window's first two days come from the rollup, its last (today) is read live.
      expect(read.rollup).toEqual({ from: '2026-03-01', to: '2026-03-03' });
      expect(read.live).toEqual([{ since: new Date('2026-03-03T00:00:00.000Z'), until: UNTIL }]);
      const answer = await expectSame(q);
      expect(answer.rows.length).toBeGreaterThan(1);
    });

    it.each(['tool', 'person', 'day'] as const)(
      'by=%s: a window cut mid-day reads its partial first day live too',
      async (by) => {
        await rollup.refresh();
        const q = query(by, new Date(SINCE.getTime() + 2 * HOUR + 7 * 60_000), new Date(UNTIL.getTime() - 13 * HOUR));
        const { read } = await fromRollup(q);
        expect(read.rollup).toEqual({ from: '2026-03-02', to: '2026-03-03' });
        expect(read.live).toHaveLength(2);
        await expectSame(q);
      },
    );

    it('a verdict given after the refresh on a rollup day counts once the next refresh has run', async () => {
      await rollup.refresh();
      const state = await harness.insights.rollupState();
      const stored = await harness.store.get(late.id);
      if (stored?.status === 'pending') {
        // Pending at the refresh: the next refresh starts at its day.
        expect(state!.openFrom).toBe('2026-03-01');
        const result = await harness.store.decide(late.id, {
          decision: 'approve',
          actor: 'web:bob',
          person: 'bob',
          via: 'web',
          reason: null,
          option: null,
          approvedArgs: null,
          at: new Date(NOW.getTime() - HOUR),
        });
        expect(result.kind).toBe('final');
        const [{ answer: stale }, truth] = await Promise.all([fromRollup(query('tool')), exact(query('tool'))]);
        const deploy = (r: typeof truth) => r.rows.find((row) => row.key === 'deploy')!;
        // As of the refresh: the late approval is not in it yet, and the answer says when it was taken.
        expect(deploy(stale).approved).toBe(deploy(truth).approved - 1);
        expect(stale.as_of).toBe(state!.refreshedAt.toISOString());
      }
      // Not due until the period has passed; then the periodic job refreshes from the open day.
      now += 60_000;
      expect(await rollup.refreshWhenDue()).toBeNull();
      now += 10 * 60_000;
      const refreshed = await rollup.refreshWhenDue();
      expect(refreshed?.openFrom).toBe(refreshed?.through);
      for (const by of DIMENSIONS) await expectSame(query(by));
    });
  });
}
