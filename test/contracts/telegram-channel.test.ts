/**
 * The shared channel contract, run against the real Telegram channel (grammY) in webhook mode and a fake Bot API that
 * posts updates to the gateway's webhook with the secret header.
 */
import { makeTelegramHarness } from '../fakes/telegram/harness.js';
import { runChannelContract } from './channel.contract.js';

runChannelContract('telegram', () => makeTelegramHarness());
