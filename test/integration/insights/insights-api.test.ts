/**
 * `GET /v1/insights` through the real gateway on both stores: the seeded history's known answers over HTTP, groups
 * read from the configured directory, the scope, and bad input refused with a 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectedDays,
  expectedRows,
  GROUPS,
  historySpecs,
  seedHistory,
  SINCE,
  UNTIL,
  withinError,
} from '../../contracts/insights-history.js';
import type { InsightsJson } from '../../../src/insights/report.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresConfirmationStore } from '../../../src/stores/postgres/store.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

const DIRECTORY = `people:
  - { id: alice, accounts: { slack: U1, web: alice } }
  - { id: bob, accounts: { web: bob } }
  - { id: carol, accounts: { slack: U3 } }
groups:
${Object.entries(GROUPS)
  .map(([group, people]) => `  ${group}: [${people.join(', ')}]`)
  .join('\n')}
`;

const window = `since=${SINCE.toISOString()}&until=${UNTIL.toISOString()}`;

describe.each(['sqlite', 'postgres'])('GET /v1/insights on %s', (dialect) => {
  let t: TestServer;
  let fresh: FreshDatabase | undefined;
  // The gateway expires a request still pending past its deadline as it starts, and the seeded days are long past:
  // the still-pending request of the store contract's history has no place here.
  const specs = historySpecs().filter((s) => s.outcome !== 'pending');

  beforeAll(async () => {
    fresh = dialect === 'postgres' ? await freshDatabase({ migrate: true }) : undefined;
    if (fresh) {
      // The gateway's PostgreSQL store judges deadlines by the database's clock, which has passed the seeded days:
      // the history is written first through a store that takes the seed's times, as the store contract does.
      const seeder = new PostgresConfirmationStore(openPostgres(fresh.url, { poolSize: 2 }), {
        deadlineClock: 'caller',
      });
      await seedHistory(seeder, specs).finally(() => seeder.close());
    }
    t = await startTestServer({ policy: DIRECTORY, ...(fresh ? { dbPath: fresh.url } : {}) });
    if (!fresh) await seedHistory(t.store, specs);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await fresh?.drop();
  });

  const get = (query: string, token?: string) =>
    t.api(`/v1/insights?${query}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  it('answers the contract shape: totals, rows by person with fast approvals, the daily series', async () => {
    const res = await get(`${window}&by=person`);
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as InsightsJson;
    const rows = expectedRows(specs, 'person');
    // The seeded days are long past: every figure comes from the rollup, built for this first answer.
    expect(Date.parse(body.as_of!)).toBeGreaterThan(UNTIL.getTime());
    expect({ ...body, rows: withinError(body.rows, rows, 0.01) }).toEqual({
      since: SINCE.toISOString(),
      until: UNTIL.toISOString(),
      by: 'person',
      as_of: body.as_of,
      percentile_relative_error: 0.01,
      rows,
      ...expectedDays(specs),
    });
  });

  it('answers by=approver: each deciding account with its fast approvals', async () => {
    const res = await get(`${window}&by=approver`);
    expect(res.status, await res.clone().text()).toBe(200);
    const { rows } = (await res.json()) as InsightsJson;
    const expected = expectedRows(specs, 'approver');
    expect(withinError(rows, expected, 0.01)).toEqual(expected);
    expect(rows.map((r) => r.key)).toContain('web:alice');
    expect(rows.some((r) => r.fast_approvals !== null)).toBe(true);
  });

  it("groups by the directory's groups (a person in two groups counts in both)", async () => {
    const res = await get(`${window}&by=group`);
    const expected = expectedRows(specs, 'group');
    expect(withinError(((await res.json()) as InsightsJson).rows, expected, 0.01)).toEqual(expected);
  });

  it.each(['agent_kind', 'repo'])("groups by a coding agent's %s (null: requests without one)", async (by) => {
    const res = await get(`${window}&by=${by}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const rows = ((await res.json()) as InsightsJson).rows;
    const expected = expectedRows(specs, by);
    expect(withinError(rows, expected, 0.01)).toEqual(expected);
    expect(rows.map((r) => r.key)).toContain(null);
  });

  it('defaults to the last 30 days by tool', async () => {
    const body = (await (await get('')).json()) as { by: string; since: string; until: string; series: unknown[] };
    expect(body.by).toBe('tool');
    expect(Date.parse(body.until) - Date.parse(body.since)).toBe(30 * 86_400_000);
    expect(body.series).toHaveLength(31);
  });

  it.each([
    ['by=nope', 'by'],
    ['since=yesterday', 'since'],
    ['until=2026-13-45', 'until'],
    [`since=${UNTIL.toISOString()}&until=${SINCE.toISOString()}`, 'until'],
    ['since=2000-01-01T00:00:00Z&until=2026-01-01T00:00:00Z', 'since'],
    ['limit=0', 'limit'],
    ['colour=red', 'query'],
  ])('refuses ?%s with a 400 naming %s', async (query, field) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).toContain(field);
  });

  it('needs audit:read (or admin)', async () => {
    const token = async (scopes: string[]) => {
      const res = await t.api('/v1/tokens', { body: { name: `t-${scopes.join('-').replaceAll(':', '.')}`, scopes } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { secret: string }).secret;
    };
    expect((await get(window, await token(['request:create', 'request:read']))).status).toBe(403);
    expect((await get(window, await token(['audit:read']))).status).toBe(200);
  });
});
