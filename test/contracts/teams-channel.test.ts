/**
 * The shared channel contract, run against the real Teams channel and a fake Bot Framework that signs activities with
 * a generated RSA key published in its OpenID metadata.
 */
import { makeTeamsHarness } from '../fakes/teams/harness.js';
import { runChannelContract } from './channel.contract.js';

runChannelContract('teams', () => makeTeamsHarness());
