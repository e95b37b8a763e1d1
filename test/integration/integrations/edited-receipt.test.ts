/**
 * `executed` is recorded only when the agent is told to run the call, with the arguments it will run (issue 58,
 * finding 7). An approver edits the arguments of a Codex (or Cursor) call; those agents cannot run edited arguments,
 * so the hook answers a deny naming the edited call, and the audit must not say the call ran. An agent that can run
 * them (Gemini CLI) is told to, and its receipt names the edited arguments. On SQLite and PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { argsSha256 } from '../../../src/requests/args-hash.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

let server: TestServer | undefined;
let database: FreshDatabase | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await database?.drop();
  database = undefined;
});

interface Answer {
  request_id: string;
  outcome: string;
  reason: string;
  updated_args: Record<string, unknown> | null;
}

describe.each(['sqlite', 'postgres'] as const)('an edited approval and the executed receipt (%s)', (dialect) => {
  it.each([
    ['codex', false],
    ['cursor', false],
    ['gemini', true],
  ] as const)('%s: executed only when told to run, with the arguments it runs', async (kind, runsEdited) => {
    if (dialect === 'postgres') database = await freshDatabase();
    server = await startTestServer(database ? { dbPath: database.url } : {});
    const s = server;
    const call = {
      agent_kind: kind,
      tool_name: 'shell',
      tool_args: { command: 'rm -rf /srv/app' },
      context: { session_id: null, cwd: '/srv/app', repo: null, branch: null, model: null },
    };
    const ask = async () => (await (await s.api('/v1/hooks/agent?wait=0', { body: call })).json()) as Answer;
    const first = await ask();
    expect(first.outcome).toBe('deferred');
    const edited = { command: 'rm -rf /srv/app/tmp' };
    const decided = await s.api(`/v1/requests/${first.request_id}/decision`, {
      body: { approver: 'web:carol', decision: 'approve', approved_args: edited },
    });
    expect(decided.status).toBe(200);

    const again = await ask();
    const executed = (await s.gateway.events(first.request_id)).filter((e) => e.type === 'executed');
    if (runsEdited) {
      expect([again.outcome, again.updated_args]).toEqual(['allow', edited]);
      expect(executed.map((e) => e.detail.args_sha256)).toEqual([argsSha256('shell', edited)]);
    } else {
      expect([again.outcome, again.updated_args]).toEqual(['deny', null]);
      expect(again.reason).toContain(JSON.stringify(edited));
      expect(executed).toEqual([]);
    }
  });
});
