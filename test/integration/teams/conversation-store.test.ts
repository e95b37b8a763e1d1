/**
 * Teams conversation references in the database (migration 0006, `teams_conversations`), on SQLite and on the real
 * PostgreSQL at 127.0.0.1:5432: saved, refreshed, read back; and a restarted gateway (a new channel on the same
 * database) sends to a conversation learned before the restart with no new install activity.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  PostgresTeamsConversationStore,
  SqliteTeamsConversationStore,
  createTeamsChannel,
  type TeamsConversationStore,
} from '../../../channels/teams/index.js';
import { openPostgres } from '../../../src/stores/postgres/database.js';
import { applyMigrations, openDatabase } from '../../../src/stores/sqlite/database.js';
import { TENANT_ID, makeTeamsHarness } from '../../fakes/teams/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

async function roundTrip(store: TeamsConversationStore): Promise<void> {
  expect(await store.get('19:a@thread.tacv2')).toBeNull();
  await store.save({ conversationId: '19:a@thread.tacv2', serviceUrl: 'https://smba.example/amer/', tenantId: 't1' });
  expect(await store.get('19:a@thread.tacv2')).toEqual({
    conversationId: '19:a@thread.tacv2',
    serviceUrl: 'https://smba.example/amer/',
    tenantId: 't1',
  });
  await store.save({ conversationId: '19:a@thread.tacv2', serviceUrl: 'https://smba.example/emea/' });
  expect(await store.get('19:a@thread.tacv2')).toEqual({
    conversationId: '19:a@thread.tacv2',
    serviceUrl: 'https://smba.example/emea/',
  });
}

describe('teams: conversation references in the database', () => {
  let database: Promise<FreshDatabase> | undefined;

  afterAll(async () => {
    await (await database)?.drop();
  });

  it('round-trips on SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-teams-'));
    const open = openDatabase(join(dir, 'tollgate.db'));
    try {
      applyMigrations(open);
      await roundTrip(new SqliteTeamsConversationStore(open.sqlite));
    } finally {
      open.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('round-trips on PostgreSQL', async () => {
    const { url } = await (database ??= freshDatabase({ migrate: true }));
    const open = openPostgres(url, { poolSize: 2 });
    try {
      await roundTrip(new PostgresTeamsConversationStore(open.pool));
    } finally {
      await open.close();
    }
  });

  it('sends to a conversation learned before a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-teams-'));
    const open = openDatabase(join(dir, 'refs.db'));
    applyMigrations(open);
    const teams = await makeTeamsHarness({ conversations: new SqliteTeamsConversationStore(open.sqlite) });
    try {
      const before = await startTestServer({ channels: [teams.channel] });
      try {
        expect((await teams.install(before)).status).toBe(200);
      } finally {
        await before.close();
      }
      // A new process: a new channel with nothing in memory, only the database in common; no install activity follows.
      const { fake } = teams;
      const restarted = createTeamsChannel({
        appId: fake.appId,
        appPassword: fake.appPassword,
        tenantId: TENANT_ID,
        openIdMetadataUrl: fake.openIdMetadataUrl,
        loginUrl: fake.loginUrl,
        conversations: new SqliteTeamsConversationStore(open.sqlite),
      });
      const after = await startTestServer({ channels: [restarted] });
      try {
        const { request } = await after.gateway.request({
          toolName: 'deploy_service',
          toolArgs: {},
          channels: [{ type: 'teams', target: teams.target }],
        });
        await eventually(async () => expect((await after.store.messages(request.id))[0]?.status).toBe('sent'));
        expect(fake.allActivities().map((a) => a.conversationId)).toEqual([teams.target]);
      } finally {
        await after.close();
      }
    } finally {
      await teams.close();
      open.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
