/**
 * The insights rollup is kept by the gateway's periodic sweep, not by requests: on a gateway whose clock is a
 * `ManualClock`, nobody asks for insights, and the sweep builds the rollup, then refreshes it once it is due (here:
 * the UTC day turned). That a fresh rollup is left alone is `refreshWhenDue`'s, in the rollup contract.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

describe('the insights rollup on the sweep', () => {
  const clock = new ManualClock(Date.UTC(2026, 2, 3, 23, 40));
  let t: TestServer;
  let db: InstanceType<typeof Database>;
  const state = () =>
    db.prepare('SELECT refreshed_at AS refreshedAt, through FROM insights_rollup_state').get() as
      { refreshedAt: string; through: string } | undefined;

  beforeAll(async () => {
    t = await startTestServer({ clock });
    db = new Database(t.dbPath, { readonly: true });
  });
  afterAll(async () => {
    db?.close();
    await t?.close();
  });

  it('builds it on the first sweep, and refreshes through the new day once the day turns', async () => {
    expect(state()).toBeUndefined();
    await eventually(() => {
      clock.advance(60_000);
      expect(state()).toEqual({ refreshedAt: expect.any(String), through: '2026-03-03' });
    });
    const first = state()!.refreshedAt;
    // Past midnight UTC the day it held is over: the next sweep refreshes through the new day.
    await eventually(() => {
      clock.advance(60_000);
      expect(state()!.through).toBe('2026-03-04');
    });
    expect(state()!.refreshedAt > first).toBe(true);
  });
});
