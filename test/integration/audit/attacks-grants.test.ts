/**
 * Forged standing grants (issue 57): a grant approves calls by itself, with a verdict token minted at filing, so the
 * attacker — who can write the database but holds no key — tried the `grants` table: a row inserted by hand, a real
 * grant's expiry pushed out, its revocation cleared, its scope widened. On main each one approved the next matching
 * call with a valid token; here each such row is not acted on — the call is asked as usual — and `audit verify` names
 * the grant and what is wrong with it.
 */
import { describe, expect, it } from 'vitest';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { attackedGateway } from './attacker.js';

const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["web:alice"]
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, agent_id, args.env] }
`;

describe.each(['sqlite', 'postgres'] as const)('a forged standing grant (%s)', (dialect) => {
  const clock = new ManualClock(Date.now());
  const g = attackedGateway(dialect, { clock, scheduler: new InProcessScheduler({ clock }), policy: POLICY });

  const file = async (env = 'staging') => {
    const res = await g.t.api('/v1/requests', {
      body: { tool_name: 'deploy', tool_args: { env }, agent_id: 'release-bot' },
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; status: string; responded_by: string | null };
  };
  /** A real grant, given by alice on a first deploy; its id. */
  const realGrant = async (): Promise<string> => {
    const first = await file();
    const res = await g.t.api(`/v1/requests/${first.id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice', grant: 'Approve for 1 hour' },
    });
    expect(res.status).toBe(200);
    const { items } = (await (await g.t.api('/v1/grants')).json()) as { items: { id: string }[] };
    expect((await file()).responded_by).toBe(`grant:${items[0]!.id}`);
    return items[0]!.id;
  };
  const iso = (ms: number) => new Date(ms).toISOString();
  const named = async (grant: string, what: string) => {
    const { problem } = await g.verify();
    expect(problem).toMatchObject({ kind: 'unwitnessed' });
    expect(problem?.message).toContain(`grant ${grant}`);
    expect(problem?.message).toContain(what);
  };

  it('real grants, used and revoked, verify clean', async () => {
    const id = await realGrant();
    expect((await g.verify()).ok).toBe(true);
    expect((await g.t.api(`/v1/grants/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await g.verify()).ok).toBe(true);
  });

  it('a grants row inserted by hand approves nothing', async () => {
    const first = await file();
    await g.raw(
      `INSERT INTO grants (id, rule, label, scope, request_id, created_by, created_at, expires_at, uses) VALUES ($1, 'deploys', 'Approve for 1 hour', $2, $3, 'web:alice', $4, $5, 0)`,
      [
        '019a0000-0000-7000-8000-00000000f0f0',
        JSON.stringify({ tool_name: 'deploy', agent_id: 'release-bot', 'args.env': 'staging' }),
        first.id,
        iso(clock.now()),
        iso(clock.now() + 3600_000),
      ],
    );
    expect(await file()).toMatchObject({ status: 'pending', responded_by: null });
    await named('019a0000-0000-7000-8000-00000000f0f0', 'no grant_created event names it');
  });

  it('a real grant with its expiry pushed out is not used past the expiry it was given with', async () => {
    const id = await realGrant();
    await g.raw(`UPDATE grants SET expires_at = $1 WHERE id = $2`, [iso(clock.now() + 365 * 86400_000), id]);
    await clock.advance(3600_000);
    expect((await file()).status).toBe('pending');
    await named(id, 'expires_at');
  });

  it('a revoked grant with its revocation cleared stays revoked', async () => {
    const id = await realGrant();
    expect((await g.t.api(`/v1/grants/${id}`, { method: 'DELETE' })).status).toBe(204);
    await g.raw(`UPDATE grants SET revoked_at = NULL, revoked_by = NULL WHERE id = $1`, [id]);
    expect((await file()).status).toBe('pending');
    await named(id, 'revocation was cleared');
  });

  it('a real grant with its scope widened covers only what it was given for', async () => {
    const id = await realGrant();
    await g.raw(`UPDATE grants SET scope = $1 WHERE id = $2`, [
      JSON.stringify({ tool_name: 'deploy', agent_id: 'release-bot' }),
      id,
    ]);
    expect((await file('production')).status).toBe('pending');
    expect((await file('staging')).status).toBe('pending');
    await named(id, 'scope');
  });
});
