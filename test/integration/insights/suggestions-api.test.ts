/**
 * Suggestions through the real gateway and CLI, on both stores: `GET /v1/insights/suggestions`, `tollgate policy
 * suggest`, and `POST /v1/insights/suggestions/:id/apply`, which makes a fixed-value suggestion a standing grant of
 * the rule in force (audited with the evidence) that then approves the same call at once, and refuses what a grant
 * cannot hold.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as policyCli } from '../../../src/cli/policy.js';
import type { SuggestionJson } from '../../../src/insights/suggestions.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresConfirmationStore } from '../../../src/stores/postgres/store.js';
import { seedSuggestionHistory, S_SINCE, S_UNTIL } from '../../contracts/suggestions-history.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

const POLICY = `policies:
  - name: shell
    match: { tool: Bash }
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, agent_id] }
`;
const window = { since: S_SINCE.toISOString(), until: S_UNTIL.toISOString() };

describe.each(['sqlite', 'postgres'])('suggestions on %s', (dialect) => {
  let t: TestServer;
  let fresh: FreshDatabase | undefined;
  let suggestions: SuggestionJson[];

  beforeAll(async () => {
    fresh = dialect === 'postgres' ? await freshDatabase({ migrate: true }) : undefined;
    if (fresh) {
      // Seeded through a store that takes the seed's (past) times, as insights-api.test.ts explains.
      const seeder = new PostgresConfirmationStore(openPostgres(fresh.url, { poolSize: 2 }), {
        deadlineClock: 'caller',
      });
      await seedSuggestionHistory(seeder).finally(() => seeder.close());
    }
    t = await startTestServer({ policy: POLICY, ...(fresh ? { dbPath: fresh.url } : {}) });
    if (!fresh) await seedSuggestionHistory(t.store);
    const res = await t.api(`/v1/insights/suggestions?since=${window.since}&until=${window.until}&min=10`);
    expect(res.status, await res.clone().text()).toBe(200);
    suggestions = (await res.json()) as SuggestionJson[];
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await fresh?.drop();
  });

  const apply = (id: string, body: unknown, token?: string) =>
    t.api(`/v1/insights/suggestions/${id}/apply`, {
      body,
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    });

  it('lists the repeated calls over the API, and the CLI prints the same', async () => {
    expect(suggestions.map((s) => s.summary)).toEqual([
      'ops calling Bash with command = "npm test"',
      'ops calling Bash with command starting "git status"',
    ]);
    const printed: string[] = [];
    const json = await policyCli(
      ['suggest', '--db', t.dbPath, '--since', '2026-04-01', '--until', window.until, '--min', '10', '--json'],
      (text) => printed.push(text),
    );
    expect(json).toBe(0);
    expect((JSON.parse(printed.join('')) as SuggestionJson[]).map((s) => s.id)).toEqual(suggestions.map((s) => s.id));
    printed.length = 0;
    const suggest = ['suggest', '--db', t.dbPath, '--since', '2026-04-01', '--until', window.until];
    expect(await policyCli(suggest, (text) => printed.push(text))).toBe(0);
    expect(printed.join('')).toContain('  - name: suggested-');
    expect(printed.join('')).toContain('would have approved 12 requests at once');
  });

  it('with TOLLGATE_URL set and no --db, the CLI asks the gateway (and needs no database), naming a refusal', async () => {
    // A database path that does not exist: the answer can only have come from the gateway.
    vi.stubEnv('TOLLGATE_DB', '/nonexistent/tollgate.db');
    vi.stubEnv('TOLLGATE_URL', t.url);
    vi.stubEnv('TOLLGATE_TOKEN', t.token);
    try {
      const printed: string[] = [];
      expect(
        await policyCli(
          ['suggest', '--since', '2026-04-01', '--until', window.until, '--min', '10', '--json'],
          (text) => printed.push(text),
        ),
      ).toBe(0);
      expect((JSON.parse(printed.join('')) as SuggestionJson[]).map((s) => s.id)).toEqual(suggestions.map((s) => s.id));
      const agent = await t.api('/v1/tokens', { body: { name: 'an-agent', scopes: ['request:create'] } });
      vi.stubEnv('TOLLGATE_TOKEN', ((await agent.json()) as { secret: string }).secret);
      await expect(policyCli(['suggest'], () => undefined)).rejects.toThrow(
        /token "an-agent" lacks the scope "admin" or "audit:read"/,
      );
      // --db reads that database even with TOLLGATE_URL set.
      printed.length = 0;
      expect(
        await policyCli(
          ['suggest', '--db', t.dbPath, '--since', '2026-04-01', '--until', window.until, '--json'],
          (x) => printed.push(x),
        ),
      ).toBe(0);
      expect((JSON.parse(printed.join('')) as SuggestionJson[]).map((s) => s.id)).toEqual(suggestions.map((s) => s.id));
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('applies a fixed-value suggestion as a standing grant, audited with its evidence, that approves the call at once', async () => {
    const npm = suggestions.find((s) => s.grantable)!;
    const res = await apply(npm.id, { expires_in_s: 3600, ...window, min: 10 });
    expect(res.status, await res.clone().text()).toBe(201);
    const { grant } = (await res.json()) as { grant: { id: string; rule: string; scope: unknown; request_id: string } };
    expect(grant).toMatchObject({
      rule: 'shell',
      scope: { tool_name: 'Bash', agent_id: 'ops', 'args.command': 'npm test' },
    });
    const list = await t.store.events(grant.request_id);
    expect(list.find((e) => e.type === 'grant_created')?.detail).toMatchObject({
      grant: grant.id,
      suggestion: {
        id: npm.id,
        would_auto_approve: 12,
        approvers: ['alice', 'bob'],
        nearest_denied: npm.nearest_denied!.id,
      },
    });
    const file = async (command: string) => {
      const filed = await t.api('/v1/requests', {
        body: { tool_name: 'Bash', agent_id: 'ops', tool_args: { command, description: 'again' } },
      });
      return (await filed.json()) as { status: string; responded_by: string | null };
    };
    expect(await file('npm test')).toMatchObject({ status: 'approved', responded_by: `grant:${grant.id}` });
    expect((await file('npm test --watch')).status).toBe('pending');
  });

  it('refuses what a grant cannot hold, an unknown id, bad input and a token without admin', async () => {
    const git = suggestions.find((s) => !s.grantable)!;
    const prefix = await apply(git.id, { expires_in_s: 3600, ...window });
    expect(prefix.status).toBe(409);
    expect(((await prefix.json()) as { detail: string }).detail).toMatch(/leading words/);
    expect((await apply('0123456789ab', { expires_in_s: 3600, ...window })).status).toBe(404);
    const bad = await apply(git.id, { expires_in_s: 5, ...window });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain('expires_in_s');
    const created = await t.api('/v1/tokens', { body: { name: 'auditor', scopes: ['audit:read'] } });
    const { secret } = (await created.json()) as { secret: string };
    expect((await apply(git.id, { expires_in_s: 3600, ...window }, secret)).status).toBe(403);
    expect(
      (
        await t.api(`/v1/insights/suggestions?since=${window.since}&until=${window.until}`, {
          headers: { authorization: `Bearer ${secret}` },
        })
      ).status,
    ).toBe(200);
  });

  it('answers a bad window with a 400 naming the field', async () => {
    const res = await t.api(`/v1/insights/suggestions?since=${window.until}&until=${window.since}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain('until');
    expect((await t.api('/v1/insights/suggestions?min=0')).status).toBe(400);
  });
});
vi.setConfig({ testTimeout: 30_000 });
