/**
 * Teams configuration: off without TEAMS_* variables, a ValidationError naming the variable when configured halfway,
 * the test-only authority URLs and the default conversation read from the environment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { channelsFromConfig } from '../../../channels/index.js';
import { SqliteTeamsConversationStore, teamsOptionsFromEnv, type TeamsChannel } from '../../../channels/teams/index.js';
import { openStores } from '../../../src/stores/open-store.js';
import { loadConfig } from '../../../src/config.js';
import { ValidationError } from '../../../src/api/errors.js';

const full = { TEAMS_APP_ID: 'app', TEAMS_APP_PASSWORD: 'secret', TEAMS_TENANT_ID: 'tenant' };

describe('teams: configuration', () => {
  it('is off when no TEAMS_* credential is set', () => {
    expect(teamsOptionsFromEnv({})).toBeNull();
  });

  for (const missing of Object.keys(full)) {
    it(`names ${missing} when it is the one missing`, () => {
      const env: Record<string, string> = { ...full };
      delete env[missing];
      let thrown: unknown;
      try {
        teamsOptionsFromEnv(env);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ValidationError);
      expect((thrown as Error).message).toContain(missing);
    });
  }

  it('reads the authority URLs and the default conversation', () => {
    const options = teamsOptionsFromEnv({
      ...full,
      TEAMS_OPENID_METADATA_URL: 'http://127.0.0.1:1/openid/',
      TEAMS_LOGIN_URL: 'http://127.0.0.1:1/login',
      TEAMS_CONVERSATION_ID: '19:x@thread.tacv2',
    });
    expect(options).toMatchObject({
      appId: 'app',
      tenantId: 'tenant',
      openIdMetadataUrl: 'http://127.0.0.1:1/openid',
      loginUrl: 'http://127.0.0.1:1/login',
      defaultTarget: '19:x@thread.tacv2',
    });
  });

  it('refuses a login URL that is not http(s)', () => {
    expect(() => teamsOptionsFromEnv({ ...full, TEAMS_LOGIN_URL: 'ftp://x' })).toThrow(/TEAMS_LOGIN_URL/);
  });

  it('is enabled by channelsFromConfig when the credentials are set, and stops the start when one is missing', async () => {
    const logger = pino({ level: 'silent' });
    const names = (
      await channelsFromConfig(loadConfig({}, { ...full, TEAMS_CONVERSATION_ID: '19:x@thread.tacv2' }), logger)
    ).map((c) => c.name);
    expect(names).toContain('teams');
    expect((await channelsFromConfig(loadConfig({}, {}), logger)).map((c) => c.name)).not.toContain('teams');
    await expect(channelsFromConfig(loadConfig({}, { TEAMS_APP_ID: 'app' }), logger)).rejects.toThrow(
      /TEAMS_APP_PASSWORD/,
    );
  });

  it('keeps conversation references in the gateway’s database when serve builds it, and learns them on every replica', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-teams-wiring-'));
    const stores = await openStores(join(dir, 'tollgate.db'));
    try {
      const build = () =>
        channelsFromConfig(loadConfig({}, full), pino({ level: 'silent' }), undefined, {
          database: { sqlite: stores.sqlite },
        });
      const [first, second] = [
        (await build()).find((c) => c.name === 'teams') as TeamsChannel,
        (await build()).find((c) => c.name === 'teams') as TeamsChannel,
      ];
      expect(first.conversations).toBeInstanceOf(SqliteTeamsConversationStore);
      await first.conversations.save({
        conversationId: '19:ops@thread.tacv2',
        serviceUrl: 'https://smba.example/emea/',
        tenantId: 'tenant',
      });
      expect(await second.conversations.get('19:ops@thread.tacv2')).toMatchObject({
        serviceUrl: 'https://smba.example/emea/',
      });
    } finally {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
