/**
 * The shared channel contract, run against the real Discord channel (`@discordjs/rest`) and a fake Discord that signs
 * interactions with a test Ed25519 key.
 */
import { makeDiscordHarness } from '../fakes/discord/harness.js';
import { runChannelContract } from './channel.contract.js';

runChannelContract('discord', () => makeDiscordHarness());
