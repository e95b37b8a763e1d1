/**
 * The approval policy's database parts on PostgreSQL: standing grants through the API (created, used at once by a
 * later request, counted, revoked), and escalation steps recorded once even when two replicas run the same step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { PostgresConfirmationStore } from '../../../src/stores/postgres/store.js';
import { file, T0 } from '../../contracts/store-fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from './fresh-database.js';

const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["web:alice"]
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, agent_id, args.env] }
`;

let database: FreshDatabase;

beforeAll(async () => {
  database = await freshDatabase({ migrate: true });
});
afterAll(async () => {
  await database?.drop();
});

describe('policy on PostgreSQL', () => {
  it('gives, uses, counts and revokes a standing grant', async () => {
    const t: TestServer = await startTestServer({ dbPath: database.url, policy: POLICY });
    try {
      const deploy = async () =>
        (await (
          await t.api('/v1/requests', {
            body: { tool_name: 'deploy', tool_args: { env: 'staging' }, agent_id: 'release-bot' },
          })
        ).json()) as Record<string, unknown>;
      const first = await deploy();
      expect(first.status).toBe('pending');
      const approved = await t.api(`/v1/requests/${String(first.id)}/decision`, {
        body: { decision: 'approve', approver: 'web:alice', grant: 'Approve for 1 hour' },
      });
      expect(approved.status).toBe(200);
      const [grant] = ((await (await t.api('/v1/grants')).json()) as { items: Record<string, unknown>[] }).items;
      expect(grant).toMatchObject({
        rule: 'deploys',
        scope: { tool_name: 'deploy', agent_id: 'release-bot', 'args.env': 'staging' },
        request_id: first.id,
        uses: 0,
      });

      const second = await deploy();
      expect(second).toMatchObject({ status: 'approved', responded_by: `grant:${String(grant!.id)}` });
      expect(
        ((await (await t.api('/v1/grants')).json()) as { items: Record<string, unknown>[] }).items[0],
      ).toMatchObject({ uses: 1 });

      expect((await t.api(`/v1/grants/${String(grant!.id)}`, { method: 'DELETE' })).status).toBeLessThan(300);
      expect((await deploy()).status).toBe('pending');
    } finally {
      await t.close();
    }
  });

  it('records an escalation step once, also when two replicas run it at once', async () => {
    const [a, b] = [
      new PostgresConfirmationStore(openPostgres(database.url)),
      new PostgresConfirmationStore(openPostgres(database.url)),
    ];
    try {
      const request = await file(a, { approvers: ['web:alice'] });
      const step = (store: PostgresConfirmationStore) =>
        store.escalate(
          request.id,
          1,
          { approvers: ['web:alice', 'web:ceo'], channels: [{ type: 'web' }] },
          {
            type: 'escalated',
            actor: 'system',
            channel: null,
            detail: { step: 1 },
            at: new Date(T0.getTime() + 60_000),
          },
        );
      const results = await Promise.all([step(a), step(b), step(a), step(b)]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect((await b.get(request.id))?.approvers).toEqual(['web:alice', 'web:ceo']);
      expect((await a.events(request.id)).filter((e) => e.type === 'escalated')).toHaveLength(1);
      expect(await step(a)).toBeNull();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
