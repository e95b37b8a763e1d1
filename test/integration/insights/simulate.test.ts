/**
 * A candidate policy replayed over a seeded history, through the real gateway (`POST /v1/policy/simulate`, YAML
 * body) and the real CLI (`tollgate policy simulate`), on both stores. The answers are worked out here from the
 * seeded calls (`suggestions-history.ts`) with plain predicates mirroring the candidate's rules.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as policyCli } from '../../../src/cli/policy.js';
import type { SimulationJson } from '../../../src/insights/simulate.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresConfirmationStore } from '../../../src/stores/postgres/store.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { seedSuggestionHistory, S_SINCE, S_UNTIL } from '../../contracts/suggestions-history.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

const CANDIDATE = `policies:
  - name: shell-reads
    match: { tool: Bash, when: 'args.command.matches("^(git|ls|cat) ")' }
    decision: allow
  - name: no-deploys
    match: { tool: deploy }
    decision: deny
  - name: npm
    match: { tool: Bash, when: 'args.command == "npm test"' }
    approvers: ["web:lead"]
`;
const BROKEN = `policies:
  - name: fine
    match: { tool: Bash }
  - name: broken
    match: { tool: Bash, when: 'args.command.matches(' }
`;
const window = `since=${S_SINCE.toISOString()}&until=${S_UNTIL.toISOString()}`;

/** What the candidate must answer for `rows`, from the rows themselves. */
function expected(rows: ConfirmationRequest[]) {
  const command = (r: ConfirmationRequest) => String(r.toolArgs.command ?? '');
  const rule = (r: ConfirmationRequest) =>
    r.toolName === 'Bash' && /^(git|ls|cat) /.test(command(r))
      ? 'shell-reads'
      : r.toolName === 'deploy'
        ? 'no-deploys'
        : command(r) === 'npm test'
          ? 'npm'
          : 'default';
  const count = (name: string) => rows.filter((r) => rule(r) === name).length;
  const denied = rows.filter((r) => rule(r) === 'shell-reads' && r.status === 'denied').reverse();
  return {
    replayed: rows.length,
    would: { auto_allow: count('shell-reads'), auto_deny: count('no-deploys'), ask: count('npm') + count('default') },
    // Every seeded request was asked of a person: each allowed or denied at once is a change; npm adds an approver.
    changed: { auto_allow: count('shell-reads'), auto_deny: count('no-deploys'), ask: 0, rerouted: count('npm') },
    by_rule: Object.fromEntries(['shell-reads', 'no-deploys', 'npm'].map((name) => [name, count(name)])),
    denied_but_would_allow_total: denied.length,
    denied_but_would_allow: denied.map((r) => ({
      id: r.id,
      tool_name: 'Bash',
      agent_id: 'ops',
      responded_by_person: 'bob',
      reason: 'no force pushes',
      rule: 'shell-reads',
      created_at: r.createdAt.toISOString(),
    })),
  };
}

describe.each(['sqlite', 'postgres'])('policy simulation on %s', (dialect) => {
  let t: TestServer;
  let fresh: FreshDatabase | undefined;
  let rows: ConfirmationRequest[];
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-simulate-'));

  beforeAll(async () => {
    fresh = dialect === 'postgres' ? await freshDatabase({ migrate: true }) : undefined;
    if (fresh) {
      const seeder = new PostgresConfirmationStore(openPostgres(fresh.url, { poolSize: 2 }), {
        deadlineClock: 'caller',
      });
      rows = await seedSuggestionHistory(seeder).finally(() => seeder.close());
    }
    t = await startTestServer(fresh ? { dbPath: fresh.url } : {});
    if (!fresh) rows = await seedSuggestionHistory(t.store);
    // As decided (the seed returns the rows as filed), in filing order.
    const decided = new Map((await t.store.getMany(rows.map((r) => r.id))).map((r) => [r.id, r]));
    rows = rows.map((r) => decided.get(r.id)!);
    writeFileSync(join(dir, 'candidate.yaml'), CANDIDATE);
    writeFileSync(join(dir, 'broken.yaml'), BROKEN);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await fresh?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (yaml: string, query = window, contentType = 'application/yaml') =>
    t.api(`/v1/policy/simulate?${query}`, { method: 'POST', body: yaml, headers: { 'content-type': contentType } });

  it('replays the window and lists first what a person denied that the candidate allows at once', async () => {
    const res = await post(CANDIDATE);
    expect(res.status, await res.clone().text()).toBe(200);
    const report = (await res.json()) as SimulationJson;
    expect(report).toEqual({ since: S_SINCE.toISOString(), until: S_UNTIL.toISOString(), ...expected(rows) });
    expect(report.denied_but_would_allow).toHaveLength(1);
  });

  it('the CLI answers the same, and exits 2 naming the entry of a candidate that does not load', async () => {
    const printed: string[] = [];
    const code = await policyCli(
      [
        'simulate',
        '--config',
        join(dir, 'candidate.yaml'),
        '--db',
        t.dbPath,
        '--since',
        S_SINCE.toISOString(),
        '--until',
        S_UNTIL.toISOString(),
        '--json',
      ],
      (text) => printed.push(text),
    );
    expect(code).toBe(0);
    expect(JSON.parse(printed.join(''))).toEqual({
      since: S_SINCE.toISOString(),
      until: S_UNTIL.toISOString(),
      ...expected(rows),
    });
    printed.length = 0;
    expect(
      await policyCli(
        [
          'simulate',
          '--config',
          join(dir, 'candidate.yaml'),
          '--db',
          t.dbPath,
          '--since',
          S_SINCE.toISOString(),
          '--until',
          S_UNTIL.toISOString(),
        ],
        (text) => printed.push(text),
      ),
    ).toBe(0);
    expect(printed.join('')).toMatch(
      /DENIED by a person, but the candidate allows at once \(1\):\n {2}\S+ \S+ Bash \(agent ops\) denied by bob: no force pushes → rule shell-reads/,
    );
    const errors: string[] = [];
    const { simulateCommand } = await import('../../../src/cli/policy-simulate.js');
    expect(
      await simulateCommand(
        ['--config', join(dir, 'broken.yaml'), '--db', t.dbPath],
        () => undefined,
        (text) => errors.push(text),
      ),
    ).toBe(2);
    expect(errors.join('')).toContain(`${join(dir, 'broken.yaml')}: policies[1] "broken".match.when`);
  });

  it('with TOLLGATE_URL set and no --db, the CLI asks the gateway (and needs no database); it needs admin', async () => {
    // A database path that does not exist: the answer can only have come from the gateway.
    vi.stubEnv('TOLLGATE_DB', '/nonexistent/tollgate.db');
    vi.stubEnv('TOLLGATE_URL', t.url);
    vi.stubEnv('TOLLGATE_TOKEN', t.token);
    const argv = ['simulate', '--config', join(dir, 'candidate.yaml'), '--since', S_SINCE.toISOString()];
    try {
      const printed: string[] = [];
      expect(await policyCli([...argv, '--until', S_UNTIL.toISOString(), '--json'], (text) => printed.push(text))).toBe(
        0,
      );
      expect(JSON.parse(printed.join(''))).toEqual({
        since: S_SINCE.toISOString(),
        until: S_UNTIL.toISOString(),
        ...expected(rows),
      });
      // A candidate that does not load is refused before anything is sent, naming the file's entry.
      const errors: string[] = [];
      const { simulateCommand } = await import('../../../src/cli/policy-simulate.js');
      expect(
        await simulateCommand(
          ['--config', join(dir, 'broken.yaml')],
          () => undefined,
          (text) => errors.push(text),
        ),
      ).toBe(2);
      expect(errors.join('')).toContain(`${join(dir, 'broken.yaml')}: policies[1] "broken".match.when`);
      const auditor = await t.api('/v1/tokens', { body: { name: 'auditor-cli', scopes: ['audit:read'] } });
      vi.stubEnv('TOLLGATE_TOKEN', ((await auditor.json()) as { secret: string }).secret);
      await expect(policyCli(argv, () => undefined)).rejects.toThrow(/token "auditor-cli" lacks the scope "admin"/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses a candidate that does not load with a 400 naming its entry, and bad input naming the field', async () => {
    const broken = await post(BROKEN);
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual([
      'candidate: policies[1] "broken".match.when',
    ]);
    const notYaml = await post('policies: [\n');
    expect(notYaml.status).toBe(400);
    const empty = await post('');
    expect(empty.status).toBe(400);
    const backwards = await post(CANDIDATE, `since=${S_UNTIL.toISOString()}&until=${S_SINCE.toISOString()}`);
    expect(((await backwards.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain('until');
    expect((await post(CANDIDATE, window, 'application/xml')).status).toBe(415);
  });

  it('needs admin', async () => {
    const created = await t.api('/v1/tokens', { body: { name: 'auditor', scopes: ['audit:read'] } });
    const { secret } = (await created.json()) as { secret: string };
    const res = await t.api(`/v1/policy/simulate?${window}`, {
      method: 'POST',
      body: CANDIDATE,
      headers: { 'content-type': 'application/yaml', authorization: `Bearer ${secret}` },
    });
    expect(res.status).toBe(403);
  });
});
