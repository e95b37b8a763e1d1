/**
 * @module channels
 * Builds the enabled channel adapters from the configuration: `web` always, Slack and Feishu when their credentials
 * are set. This and `src/server.ts` are the only places that know every adapter. Chat SDKs are imported only when
 * their channel is on: loading them costs tens of megabytes a process that does not use them should not pay.
 */
import type { Logger } from 'pino';
import type { Channel } from '../src/channel/channel.js';
import type { TollgateConfig } from '../src/config.js';
import type { DeploymentSecrets } from '../src/contracts/deployment-secrets.js';
import type { SharedMarks } from '../src/contracts/shared-marks.js';
import type { PostgresHandle, SqliteHandle } from './teams/database-conversations.js';
import { createWebChannel, webOptionsFromConfig } from './web/index.js';

/** The database handles adapters that keep a table of their own may use (Teams' conversation references). */
export interface ChannelDatabase {
  sqlite?: SqliteHandle;
  pool?: PostgresHandle;
}

/**
 * The channels `config` enables. Throws a ValidationError naming the variable or file path that is wrong.
 * `marks`: state every replica must share (login links, sign-outs), from the database when it is PostgreSQL.
 * `shared`: the web session key when `TOLLGATE_WEB_SECRET` is unset, and the store of such keys (from the database);
 * where web sign-outs are kept (the database, on either dialect, so they outlive a restart).
 */
export async function channelsFromConfig(
  config: TollgateConfig,
  logger: Logger,
  marks?: SharedMarks,
  shared: { webSecret?: string; secrets?: DeploymentSecrets; signOuts?: SharedMarks; database?: ChannelDatabase } = {},
): Promise<Channel[]> {
  const { oidcOptions, ...web } = webOptionsFromConfig(config);
  // Discovered at start-up, so a wrong issuer stops the start with the variable's name instead of failing a sign-in.
  // openid-client is loaded only here, when OIDC is configured: a gateway without it should not pay for the module.
  const oidc = oidcOptions ? await (await import('./web/oidc/client.js')).OidcClient.discover(oidcOptions) : null;
  const channels: Channel[] = [
    createWebChannel({ ...web, oidc, secret: web.secret ?? shared.webSecret, marks, signOuts: shared.signOuts }),
  ];
  const set = (...names: string[]) => names.some((name) => config.env[name]?.trim());
  if (set('SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN') || config.file.slack) {
    const { createSlackChannel, slackOptionsFromEnv } = await import('./slack/index.js');
    const slack = slackOptionsFromEnv(config.env, config.file.slack);
    if (slack) channels.push(createSlackChannel({ ...slack, publicUrl: config.publicUrl, logger }));
  }
  if (set('FEISHU_APP_ID', 'FEISHU_APP_SECRET') || config.file.feishu) {
    const { createFeishuChannel, feishuOptionsFromEnv } = await import('./feishu/index.js');
    const options = feishuOptionsFromEnv(config.env, config.file.feishu);
    const feishu = createFeishuChannel(
      options && { ...options, marks, publicUrl: config.publicUrl },
      logger.child({ channel: 'feishu' }),
    );
    if (feishu) channels.push(feishu);
  }
  if (set('DISCORD_BOT_TOKEN', 'DISCORD_PUBLIC_KEY', 'DISCORD_APPLICATION_ID')) {
    const { createDiscordChannel, discordOptionsFromEnv } = await import('./discord/index.js');
    const discord = discordOptionsFromEnv(config.env);
    if (discord) channels.push(createDiscordChannel({ ...discord, publicUrl: config.publicUrl, logger }));
  }
  if (set('TELEGRAM_BOT_TOKEN', 'TELEGRAM_WEBHOOK_SECRET')) {
    const { createTelegramChannel, telegramOptionsFromEnv } = await import('./telegram/index.js');
    const telegram = telegramOptionsFromEnv(config.env);
    if (telegram) channels.push(createTelegramChannel({ ...telegram, publicUrl: config.publicUrl, logger }));
  }
  if (set('TEAMS_APP_ID', 'TEAMS_APP_PASSWORD', 'TEAMS_TENANT_ID')) {
    const { createTeamsChannel, teamsOptionsFromEnv, PostgresTeamsConversationStore, SqliteTeamsConversationStore } =
      await import('./teams/index.js');
    const teams = teamsOptionsFromEnv(config.env);
    // Conversation references live in the database, so every replica (and a restarted one) can send to them.
    const { database } = shared;
    const conversations = database?.pool
      ? new PostgresTeamsConversationStore(database.pool)
      : database?.sqlite
        ? new SqliteTeamsConversationStore(database.sqlite)
        : undefined;
    if (teams) channels.push(createTeamsChannel({ ...teams, publicUrl: config.publicUrl, logger, conversations }));
  }
  if (set('SMTP_URL', 'TOLLGATE_EMAIL_FROM')) {
    const { createEmailChannel, emailOptionsFromEnv } = await import('./email/index.js');
    const email = emailOptionsFromEnv(config.env);
    // Links are signed with the deployment's key kept in the database, so any replica (or this one restarted) takes them.
    const secret = email ? await shared.secrets?.get('email_links') : undefined;
    if (email) channels.push(createEmailChannel({ ...email, secret, marks, logger }));
  }
  return channels;
}
