/**
 * The contract every summarizer keeps (one suite, run for each kind): it reads the calls of its kind, gives the same
 * summary twice, stays within the bounds, uses only known risk codes, and turns garbage into a `medium` reason rather
 * than a throw or a `low`.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_SUMMARY_CHARS,
  REASONS,
  summarize,
  type CallSummary,
  type Summarizer,
  type SummaryContext,
} from '../../src/summaries/index.js';

/** One call of the summarizer's kind and what its summary must say. */
export interface SummaryCase {
  name: string;
  toolName: string;
  args: Record<string, unknown>;
  context?: SummaryContext;
  expect: (summary: CallSummary) => void;
}

/** Runs the contract for `summarizer` over its `cases` and its `garbage` (calls it accepts but cannot read). */
export function runSummarizerContract(
  summarizer: Summarizer,
  cases: SummaryCase[],
  garbage: { toolName: string; args: Record<string, unknown>; context?: SummaryContext }[],
): void {
  describe(`${summarizer.kind} summarizer (contract)`, () => {
    for (const c of cases)
      it(c.name, async () => {
        expect(summarizer.accepts(c.toolName, c.args, c.context ?? {})).toBe(true);
        const summary = await summarize(c.toolName, c.args, c.context ?? { cwd: '/repo' });
        expect(summary.kind).toBe(summarizer.kind);
        c.expect(summary);
      });

    it('gives the same summary for the same call, within its bounds, with known codes only', async () => {
      for (const c of cases) {
        const a = await summarize(c.toolName, c.args, c.context ?? { cwd: '/repo' });
        const b = await summarize(c.toolName, structuredClone(c.args), c.context ?? { cwd: '/repo' });
        expect(b).toEqual(a);
        expect(JSON.stringify(a).length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
        for (const r of a.risk_reasons) expect(Object.keys(REASONS)).toContain(r.code);
        expect(a.risk === 'low').toBe(
          a.risk_reasons.every((r) => REASONS[r.code as keyof typeof REASONS][0] === 'low'),
        );
      }
    });

    it('reads what it cannot parse as medium with a reason of its own, never low, never a throw', async () => {
      for (const g of garbage) {
        const summary = await summarize(g.toolName, g.args, g.context ?? {});
        expect(summary.risk).not.toBe('low');
        expect(summary.risk_reasons.length).toBeGreaterThan(0);
      }
    });
  });
}
