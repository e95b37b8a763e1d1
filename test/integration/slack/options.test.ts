/**
 * Configuring Slack: off without a bot token, clear errors naming the variable or file key when configured halfway,
 * the environment over the YAML file, Socket Mode when an app token is set (then no HTTP route is mounted).
 */
import { Router } from 'express';
import { describe, expect, it } from 'vitest';
import { createSlackChannel, slackOptionsFromEnv } from '../../../channels/slack/index.js';
import { ValidationError } from '../../../src/api/errors.js';

function errorOf(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('slackOptionsFromEnv', () => {
  it('is null when SLACK_BOT_TOKEN is not set', () => {
    expect(slackOptionsFromEnv({}, undefined)).toBeNull();
    expect(slackOptionsFromEnv({ SLACK_BOT_TOKEN: '  ' }, { default_target: 'C0123' })).toBeNull();
  });

  it('reads the environment, the environment winning over the file', () => {
    const options = slackOptionsFromEnv(
      {
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_SIGNING_SECRET: 'shh',
        SLACK_API_URL: 'http://127.0.0.1:9/api',
        SLACK_DEFAULT_CHANNEL: 'C0ENV',
        SLACK_BOT_ID: 'B1',
      },
      { default_target: 'C0FILE', bot_id: 'B0FILE', bot_user_id: 'U0BOT', max_args_chars: 800 },
    );
    expect(options).toEqual(
      expect.objectContaining({
        botToken: 'xoxb-1',
        signingSecret: 'shh',
        apiUrl: 'http://127.0.0.1:9/api/',
        defaultTarget: 'C0ENV',
        botId: 'B1',
        botUserId: 'U0BOT',
        maxArgsChars: 800,
      }),
    );
  });

  it('names the missing variable when Slack is configured halfway', () => {
    expect(errorOf(() => slackOptionsFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1' })).message).toMatch(
      /^SLACK_SIGNING_SECRET: /,
    );
    expect(errorOf(() => slackOptionsFromEnv({ SLACK_SIGNING_SECRET: 'shh' })).message).toMatch(/^SLACK_BOT_TOKEN: /);
    expect(
      errorOf(() => slackOptionsFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xoxb-wrong' })).message,
    ).toMatch(/^SLACK_APP_TOKEN: /);
    expect(
      errorOf(() =>
        slackOptionsFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', SLACK_API_URL: 'slack.com' }),
      ).message,
    ).toMatch(/^SLACK_API_URL: /);
  });

  it('names the bad key of the slack: file section', () => {
    const env = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };
    expect(errorOf(() => slackOptionsFromEnv(env, { default_taget: 'C0' })).errors?.[0]?.path).toBe('slack');
    expect(errorOf(() => slackOptionsFromEnv(env, { max_args_chars: 'lots' })).message).toMatch(
      /^slack\.max_args_chars: /,
    );
  });

  it('accepts Socket Mode without a signing secret, and then mounts no HTTP route', () => {
    const options = slackOptionsFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' })!;
    expect(options.appToken).toBe('xapp-1');
    const channel = createSlackChannel(options);
    expect(channel.socketMode).toBe(true);
    const router = Router();
    channel.mount(router, {
      decide: async () => ({ ok: false, code: 'invalid', message: 'unused' }),
      get: async () => null,
    });
    expect(router.stack).toHaveLength(0);
  });

  it('mounts POST /channels/slack/events in HTTP mode', () => {
    const channel = createSlackChannel(slackOptionsFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' })!);
    const router = Router();
    channel.mount(router, {
      decide: async () => ({ ok: false, code: 'invalid', message: 'unused' }),
      get: async () => null,
    });
    const routes = router.stack.map((layer) => layer.route?.path);
    expect(routes).toContain('/channels/slack/events');
  });
});
