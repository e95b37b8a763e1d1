/**
 * A quorum counts seats (issue 58, finding 6): alice is away with bob standing in; a request needs two of alice and
 * carol. Bob approving for alice fills alice's seat, so alice's own approval afterwards fills nothing (nor bob's after
 * alice's): the request waits for carol. Through the API on SQLite and PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

const DAY = 86_400_000;
const policy = () => `
people:
  - { id: alice, accounts: { web: alice }, away: { from: "${new Date(Date.now() - DAY).toISOString()}", until: "${new Date(Date.now() + DAY).toISOString()}", delegate: "person:bob" } }
  - { id: bob, accounts: { web: bob } }
  - { id: carol, accounts: { web: carol } }
`;

let server: TestServer | undefined;
let database: FreshDatabase | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await database?.drop();
  database = undefined;
});

describe.each(['sqlite', 'postgres'] as const)('a delegate fills the absentee’s seat (%s)', (dialect) => {
  it.each([
    ['bob for alice, then alice', ['web:bob', 'web:alice']],
    ['alice, then bob for alice', ['web:alice', 'web:bob']],
  ])('%s: one seat, so the request waits for carol', async (_, voters) => {
    if (dialect === 'postgres') database = await freshDatabase();
    server = await startTestServer({ policy: policy(), ...(database ? { dbPath: database.url } : {}) });
    const s = server;
    const filed = (await (
      await s.api('/v1/requests', {
        body: { tool_name: 'deploy', approvers: ['person:alice', 'person:carol'], required_approvals: 2 },
      })
    ).json()) as ApiRequest;
    const approve = (approver: string) =>
      s.api(`/v1/requests/${filed.id}/decision`, { body: { approver, decision: 'approve' } });
    await approve(voters[0]!);
    await approve(voters[1]!);
    const read = async () => (await (await s.api(`/v1/requests/${filed.id}`)).json()) as ApiRequest;
    expect((await read()).status).toBe('pending');
    expect((await approve('web:carol')).status).toBe(200);
    expect(await read()).toMatchObject({ status: 'approved', responded_by_person: 'carol' });
  });
});
