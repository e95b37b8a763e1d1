/**
 * The shared channel contract, run against the real Slack channel (Bolt + web-api) and a fake Slack Web API.
 */
import { makeSlackHarness } from '../fakes/slack/harness.js';
import { runChannelContract } from './channel.contract.js';

runChannelContract('slack', () => makeSlackHarness());
