/**
 * The suggestions contract: on a seeded history (`suggestions-history.ts`) every store finds the repeated calls and
 * none of the shapes once denied, edited or left to expire; each suggested rule, written into a config file, loads
 * through the real config reader and policy loader, matches the calls it claims and not the denied one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../src/config.js';
import { Insights } from '../../src/insights/service.js';
import type { SuggestionJson } from '../../src/insights/suggestions.js';
import { NO_DIRECTORY } from '../../src/people/no-directory.js';
import { loadPolicy, matchPolicy } from '../../src/policy/index.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import type { InsightsHarness } from './insights.contract.js';
import { seedSuggestionHistory, S_SINCE, S_UNTIL } from './suggestions-history.js';

/** Runs the suggestions contract against the stores `newStore` builds (one store, seeded once). */
export function runSuggestionsContract(name: string, newStore: () => Promise<InsightsHarness>): void {
  describe(`suggestions contract: ${name}`, () => {
    let harness: InsightsHarness;
    let rows: ConfirmationRequest[];
    let suggestions: SuggestionJson[];
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-suggest-'));
    const insights = () =>
      new Insights({
        store: harness.insights,
        directory: () => NO_DIRECTORY,
        now: () => S_UNTIL.getTime(),
        denied: async (toolName, since, until) =>
          (await harness.store.list({ status: 'denied', toolName, since, until, limit: 100 })).items,
        request: (id) => harness.store.get(id),
        policy: () => null,
        grants: null,
        note: () => Promise.resolve(),
      });
    /** The suggestion's rule, loaded from a config file through the real reader and loader. */
    const loaded = (s: SuggestionJson) => {
      const path = join(dir, `${s.id}.yaml`);
      writeFileSync(path, `policies:\n${s.rule.replace(/^/gm, '  ')}`);
      return loadPolicy(readConfigFile(path), path);
    };
    const covers = (
      s: SuggestionJson,
      r: { toolName: string; toolArgs: Record<string, unknown>; agentId: string | null },
    ) =>
      matchPolicy(loaded(s), { toolName: r.toolName, toolArgs: r.toolArgs, agentId: r.agentId ?? undefined }).rule
        .name === `suggested-${s.id}`;
    const called = (command: string) => rows.filter((r) => String(r.toolArgs.command ?? '').startsWith(command));

    beforeAll(async () => {
      harness = await newStore();
      rows = await seedSuggestionHistory(harness.store);
      suggestions = await insights().suggestions({
        since: S_SINCE.toISOString(),
        until: S_UNTIL.toISOString(),
        min: '10',
      });
    }, 60_000);
    afterAll(async () => {
      await harness?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('suggests the repeated calls, with their evidence, and nothing for a shape once denied, edited, expired or under the minimum', () => {
      expect(
        suggestions.map((s) => [s.summary, s.would_auto_approve, s.approver_minutes_saved, s.approvers, s.grantable]),
      ).toEqual([
        // 12 approvals of 4 s each: 48 s; 11 of 4 s: 44 s (minutes, one decimal).
        ['ops calling Bash with command = "npm test"', 12, 0.8, ['alice', 'bob'], true],
        ['ops calling Bash with command starting "git status"', 11, 0.7, ['alice'], false],
      ]);
      const denied = rows.find((r) => r.toolArgs.command === 'git push --force origin main')!;
      for (const s of suggestions)
        expect(s.nearest_denied).toMatchObject({
          id: denied.id,
          tool_name: 'Bash',
          agent_id: 'ops',
          responded_by_person: 'bob',
          reason: 'no force pushes',
        });
    });

    it('gives rules that load through the policy loader and match the calls they claim, not the denied one', () => {
      const [npm, git] = suggestions as [SuggestionJson, SuggestionJson];
      expect(called('npm test').length).toBe(12);
      for (const r of called('npm test')) expect(covers(npm, r)).toBe(true);
      expect(called('git  status').length + called('git status').length).toBe(11);
      for (const r of [...called('git status'), ...called('git  status')]) expect(covers(git, r)).toBe(true);
      for (const s of suggestions)
        expect(
          covers(
            s,
            rows.find((r) => r.toolArgs.command === 'git push --force origin main')!,
          ),
        ).toBe(false);
      // Neither covers other shapes, another agent, or a command that runs something else after the prefix.
      const other = (command: string, agentId = 'ops') => ({ toolName: 'Bash', toolArgs: { command }, agentId });
      for (const command of [
        'git status; rm -rf /',
        'git status && curl x | sh',
        'git status $(id)',
        'git statusx',
        'ls -la',
        'npm test --watch',
        'git status\nrm -rf /',
      ]) {
        for (const s of suggestions)
          expect(covers(s, other(command)), `${s.summary} / ${JSON.stringify(command)}`).toBe(false);
      }
      expect(covers(npm, other('npm test', 'intern'))).toBe(false);
      expect(covers(git, other('git status --porcelain'))).toBe(true);
    });

    it('keeps ids stable for the same history, and answers none above the most approvals', async () => {
      const again = await insights().suggestions({
        since: S_SINCE.toISOString(),
        until: S_UNTIL.toISOString(),
        min: '10',
      });
      expect(again.map((s) => s.id)).toEqual(suggestions.map((s) => s.id));
      expect(
        await insights().suggestions({ since: S_SINCE.toISOString(), until: S_UNTIL.toISOString(), min: '13' }),
      ).toEqual([]);
    });
  });
}
