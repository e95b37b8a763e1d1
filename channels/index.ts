/**
 * @module channels
 * Builds the enabled channel adapters from the configuration: `web` always, chat channels when their credentials
 * are set. This and `src/server.ts` are the only places that know every adapter.
 */
import type { Logger } from 'pino';
import type { Channel } from '../src/channel.js';
import type { TollgateConfig } from '../src/config.js';
import { createWebChannel } from './web/index.js';

/** The channels `config` enables. */
export async function channelsFromConfig(config: TollgateConfig, logger: Logger): Promise<Channel[]> {
  const channels: Channel[] = [createWebChannel()];
  void logger;
  return channels;
}
