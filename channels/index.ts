/**
 * @module channels
 * Builds the enabled channel adapters from the configuration: `web` always, Slack and Feishu when their credentials
 * are set. This and `src/server.ts` are the only places that know every adapter.
 */
import type { Logger } from 'pino';
import type { Channel } from '../src/channel.js';
import type { TollgateConfig } from '../src/config.js';
import { createFeishuChannel, feishuOptionsFromEnv } from './feishu/index.js';
import { createSlackChannel, slackOptionsFromEnv } from './slack/index.js';
import { createWebChannel, webOptionsFromConfig } from './web/index.js';

/** The channels `config` enables. Throws a ValidationError naming the variable or file path that is wrong. */
export async function channelsFromConfig(config: TollgateConfig, logger: Logger): Promise<Channel[]> {
  const channels: Channel[] = [createWebChannel(webOptionsFromConfig(config))];
  const slack = slackOptionsFromEnv(config.env, config.file.slack);
  if (slack) channels.push(createSlackChannel({ ...slack, logger: logger.child({ channel: 'slack' }) }));
  const feishu = createFeishuChannel(feishuOptionsFromEnv(config.env, config.file.feishu), logger.child({ channel: 'feishu' }));
  if (feishu) channels.push(feishu);
  return channels;
}
