/**
 * The webhook's two checks on their own: the secret header (required in webhook mode; missing, wrong, a prefix or an
 * extension of the secret all refused) and the replay window (an update id is refused again until the window has
 * passed, and a flood evicts the oldest first).
 */
import { describe, expect, it } from 'vitest';
import { SeenUpdates, createTelegramChannel, secretTokenProblem } from '../../../channels/telegram/index.js';

describe('secretTokenProblem', () => {
  it('is required to build a channel in webhook mode', () => {
    expect(() => createTelegramChannel({ botToken: '1:x', mode: 'webhook' })).toThrow(/webhook secret/);
    expect(createTelegramChannel({ botToken: '1:x', mode: 'polling' }).name).toBe('telegram');
  });

  it('takes the secret and nothing else', () => {
    expect(secretTokenProblem('s3cret_-X', 's3cret_-X')).toBeNull();
    expect(secretTokenProblem(undefined, 's3cret_-X')).toMatch(/missing/);
    expect(secretTokenProblem('', 's3cret_-X')).toMatch(/missing/);
    for (const wrong of ['s3cret_-x', 's3cret_-', 's3cret_-XX', ' s3cret_-X'])
      expect(secretTokenProblem(wrong, 's3cret_-X')).toMatch(/wrong/);
  });
});

describe('SeenUpdates', () => {
  it('refuses an update id inside the window and takes it again after', () => {
    const seen = new SeenUpdates(600);
    expect(seen.firstUse(7, 0)).toBe(true);
    expect(seen.firstUse(7, 599_000)).toBe(false);
    expect(seen.firstUse(8, 599_000)).toBe(true);
    expect(seen.firstUse(7, 600_001)).toBe(true);
    expect(seen.firstUse(8, 600_001)).toBe(false);
  });

  it('forgets the oldest id first when full', () => {
    const seen = new SeenUpdates(600, 2);
    seen.firstUse(1, 0);
    seen.firstUse(2, 0);
    seen.firstUse(3, 0);
    expect(seen.firstUse(1, 0)).toBe(true);
    expect(seen.firstUse(3, 0)).toBe(false);
  });
});
