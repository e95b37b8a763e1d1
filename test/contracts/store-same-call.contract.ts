/**
 * `newestSameCall` (part of `runStoreContract`): the hook routes' lookup of a runtime's call asked again — the newest
 * row of the same agent, tool, session and arguments, within the agent and tool's newest rows.
 */
import { describe, expect, it } from 'vitest';
import { argsSha256 } from '../../src/requests/args-hash.js';
import type { ConfirmationStore, SameCallQuery } from '../../src/requests/store.js';
import { at, file, vote } from './store-fixtures.js';

const ARGS = { path: '/srv/app/README.md' };

/** The query for `ARGS` on `Read` by agent `claude-code` in session `s1`, with `extra` on top. */
const call = (extra: Partial<SameCallQuery> = {}): SameCallQuery => ({
  agentId: 'claude-code',
  toolName: 'Read',
  sessionId: 's1',
  filedBy: null,
  argsSha256: argsSha256('Read', ARGS),
  window: 50,
  ...extra,
});

/** Declares the tests; `store()` is the current test's store. */
export function runStoreSameCallContract(store: () => ConfirmationStore): void {
  describe('newestSameCall', () => {
    const same = { agentId: 'claude-code', toolName: 'Read', sessionId: 's1', toolArgs: ARGS };

    it('finds the newest row of the same agent, tool, session and arguments, and only that', async () => {
      await file(store(), same, at(0));
      const newer = await file(store(), same, at(60));
      // Newer rows that differ in one field each: none of them is the call.
      await file(store(), { ...same, toolArgs: { path: '/srv/app/other.md' } }, at(120));
      await file(store(), { ...same, sessionId: 's2' }, at(121));
      await file(store(), { ...same, sessionId: undefined }, at(122));
      await file(store(), { ...same, agentId: 'pulsebot' }, at(123));
      await file(store(), { ...same, toolName: 'Grep' }, at(124));
      await store().decide(newer.id, vote('web:alice', 'approve', 70));

      const found = await store().newestSameCall(call());
      expect(found).toMatchObject({ id: newer.id, status: 'approved', toolArgs: ARGS, sessionId: 's1' });
      expect(found?.createdAt).toEqual(at(60));
      expect(await store().newestSameCall(call({ argsSha256: argsSha256('Read', { path: '/nowhere' }) }))).toBeNull();
      expect(await store().newestSameCall(call({ agentId: 'nobody' }))).toBeNull();
    });

    it("finds only the asking token's rows: another token's identical call is not this one", async () => {
      const mine = await file(store(), { ...same, filedBy: 'agent-one' }, at(0));
      await file(store(), { ...same, filedBy: 'agent-two' }, at(60));
      expect((await store().newestSameCall(call({ filedBy: 'agent-one' })))?.id).toBe(mine.id);
      expect(await store().newestSameCall(call({ filedBy: 'agent-three' }))).toBeNull();
      expect(await store().newestSameCall(call())).toBeNull();
    });

    it('matches a null session only to rows filed without one', async () => {
      const none = await file(store(), { ...same, sessionId: undefined }, at(0));
      await file(store(), same, at(60));
      expect((await store().newestSameCall(call({ sessionId: null })))?.id).toBe(none.id);
    });

    it('looks only at the agent and tool newest `window` rows', async () => {
      const target = await file(store(), same, at(0));
      // Rows of other agents or tools do not push it out of the window; the agent's own rows for the tool do.
      await file(store(), { ...same, agentId: 'pulsebot', toolArgs: { n: 1 } }, at(1));
      await file(store(), { ...same, toolName: 'Grep', toolArgs: { n: 1 } }, at(2));
      await file(store(), { ...same, toolArgs: { n: 1 } }, at(3));
      await file(store(), { ...same, toolArgs: { n: 2 } }, at(4));
      expect((await store().newestSameCall(call({ window: 3 })))?.id).toBe(target.id);
      expect(await store().newestSameCall(call({ window: 2 }))).toBeNull();
    });

    it('with alsoApprovedArgs, also matches a row whose approved (edited) arguments are the call', async () => {
      const edited = { path: '/srv/app/README.md', limit: 10 };
      const asked = await file(store(), { ...same, toolArgs: { path: '/etc/passwd' } }, at(0));
      await store().decide(asked.id, vote('web:alice', 'approve', 10, { approvedArgs: edited }));
      // A newer row approved as asked, with other arguments: it has approved args of its own only when edited.
      const other = await file(store(), { ...same, toolArgs: { path: '/tmp/x' } }, at(20));
      await store().decide(other.id, vote('web:alice', 'approve', 30));

      const ranArgs = call({ argsSha256: argsSha256('Read', { limit: 10, path: '/srv/app/README.md' }) });
      expect(await store().newestSameCall(ranArgs)).toBeNull();
      expect(await store().newestSameCall({ ...ranArgs, alsoApprovedArgs: true })).toMatchObject({
        id: asked.id,
        approvedArgs: edited,
      });
      // A newer row with the call's own arguments wins over the older edited one.
      const direct = await file(store(), { ...same, toolArgs: edited }, at(40));
      expect((await store().newestSameCall({ ...ranArgs, alsoApprovedArgs: true }))?.id).toBe(direct.id);
    });
  });
}
