/**
 * `/openapi.json` lists every route the app serves outside the web inbox's HTML pages — the /v1 API, the runtime
 * hooks, token and login-link management, receipts, grants, the platform callbacks and the operations endpoints — and
 * nothing it does not serve.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordChannel } from '../../../channels/discord/index.js';
import { FeishuChannel } from '../../../channels/feishu/index.js';
import { createSlackChannel } from '../../../channels/slack/index.js';
import { createTeamsChannel } from '../../../channels/teams/index.js';
import { createTelegramChannel } from '../../../channels/telegram/index.js';
import { createWebChannel } from '../../../channels/web/index.js';
import { registeredRoutes } from '../../helpers/routes.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('GET /openapi.json', () => {
  let t: TestServer;

  beforeEach(async () => {
    // Every channel, so their callback routes are registered too (nothing is sent: no request is filed).
    const slack = createSlackChannel({
      botToken: 'xoxb-openapi',
      signingSecret: 'openapi-secret',
      apiUrl: 'http://127.0.0.1:9/api/',
      botId: 'B0',
      botUserId: 'U0',
    });
    const feishu = new FeishuChannel({
      appId: 'cli_openapi',
      appSecret: 's',
      domain: 'http://127.0.0.1:9',
      verificationToken: 'v',
      encryptKey: 'k',
      mode: 'webhook',
      language: 'en',
      replayWindowS: 300,
      requestTimeoutMs: 1000,
    });
    const discord = createDiscordChannel({
      botToken: 'openapi',
      publicKey: 'ab'.repeat(32),
      applicationId: '1',
      apiUrl: 'http://127.0.0.1:9/api',
    });
    const teams = createTeamsChannel({
      appId: 'openapi',
      appPassword: 's',
      tenantId: 't',
      openIdMetadataUrl: 'http://127.0.0.1:9/openid',
      loginUrl: 'http://127.0.0.1:9',
    });
    const telegram = createTelegramChannel({
      botToken: '1:openapi',
      mode: 'webhook',
      webhookSecret: 'openapi',
      apiRoot: 'http://127.0.0.1:9',
    });
    t = await startTestServer({ channels: [createWebChannel(), slack, feishu, discord, teams, telegram] });
  });

  afterEach(async () => {
    await t.close();
  });

  it('documents exactly the routes the app registers (the web inbox under /ui as one entry)', async () => {
    const app = t.server.app;
    const served = registeredRoutes(app)
      .filter((r) => !r.split(' ')[1]!.startsWith('/ui/'))
      .map((r) => r.replace(/:(\w+)/g, '{$1}'));
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      .sort();
    expect(
      served.filter((r) => !documented.includes(r)),
      'served but not in /openapi.json',
    ).toEqual([]);
    expect(
      documented.filter((r) => !served.includes(r)),
      'in /openapi.json but not served',
    ).toEqual([]);
    for (const must of [
      'POST /v1/hooks/claude-code',
      'POST /channels/slack/events',
      'POST /channels/feishu/events',
      'POST /channels/telegram/webhook',
      'POST /v1/tokens',
      'POST /v1/requests/{id}/receipt',
      'POST /v1/web/login-links',
      'GET /openapi.json',
    ]) {
      expect(documented).toContain(must);
    }
  });
});
