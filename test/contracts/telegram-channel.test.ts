/**
 * The shared channel contract, run against the real Telegram channel (grammY) and a fake Bot API: in webhook mode (the
 * fake posts updates to the gateway's webhook with the secret header) and in polling mode (the fake hands them out
 * through `getUpdates`).
 */
import { makeTelegramHarness } from '../fakes/telegram/harness.js';
import { runChannelContract } from './channel.contract.js';

runChannelContract('telegram', () => makeTelegramHarness());
runChannelContract('telegram', () => makeTelegramHarness({ mode: 'polling' }));
