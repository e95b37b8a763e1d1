/**
 * Teams delivery against the fake connector, calling the channel directly: one client-credentials token serves many
 * calls, a 429 becomes a RateLimitedError carrying Retry-After, a 404 a permanent failure, a 5xx a retryable one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermanentChannelError, RateLimitedError } from '../../../src/channel/channel.js';
import { newRequest } from '../../contracts/store-fixtures.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { makeTeamsHarness, type TeamsHarness } from '../../fakes/teams/harness.js';

describe('teams: delivery', () => {
  let teams: TeamsHarness;
  let request: ConfirmationRequest;

  beforeEach(async () => {
    teams = await makeTeamsHarness();
    await teams.channel.conversations.save({ conversationId: teams.target, serviceUrl: teams.fake.serviceUrl });
    request = newRequest({ toolName: 'deploy_service', toolArgs: { service: 'billing' } });
  });

  afterEach(async () => {
    await teams.close();
  });

  it('fetches one token for many calls and updates what it sent', async () => {
    const ref = await teams.channel.send(request, teams.target);
    await teams.channel.send(request, teams.target);
    await teams.channel.update(
      { ...request, status: 'denied', allowed: false, respondedBy: 'api:ops', respondedAt: new Date() },
      { target: teams.target, messageRef: ref },
    );
    expect(teams.fake.tokensIssued).toHaveLength(1);
    expect(teams.fake.calls.map((c) => c.method)).toEqual(['POST', 'POST', 'PUT']);
  });

  it('maps 429, 404 and 5xx to the channel contract errors', async () => {
    teams.fake.failNext(429, 7);
    await expect(teams.channel.send(request, teams.target)).rejects.toSatisfy(
      (e) => e instanceof RateLimitedError && e.retryAfterMs === 7000,
    );
    teams.fake.failNext(404);
    await expect(teams.channel.send(request, teams.target)).rejects.toBeInstanceOf(PermanentChannelError);
    teams.fake.failNext(502);
    await expect(teams.channel.send(request, teams.target)).rejects.toSatisfy(
      (e) => !(e instanceof PermanentChannelError) && e instanceof Error,
    );
    expect(await teams.channel.send(request, teams.target)).toMatch(/\|19:approvals/);
  });
});
