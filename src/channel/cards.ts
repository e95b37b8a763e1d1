/**
 * @module channel/cards
 * Which cards a new request gets: each `channels` entry checked against the enabled channels, default targets filled
 * in, duplicates dropped.
 */
import type { Channel } from './channel.js';
import { ValidationError } from '../api/errors.js';
import type { ChannelTarget } from '../requests/types.js';

/**
 * Resolves a request's `channels` list against the enabled channels.
 * @throws ValidationError naming `channels[i].type` / `channels[i].target` for a channel that is off or lacks a target.
 */
export function resolveCards(
  targets: ChannelTarget[],
  channels: ReadonlyMap<string, Channel>,
): { type: string; target?: string }[] {
  const problems: { path: string; message: string }[] = [];
  const cards = targets.map((t, i) => {
    const channel = channels.get(t.type);
    if (!channel) {
      problems.push({
        path: `channels[${i}].type`,
        message: `channel "${t.type}" is not enabled (enabled: ${[...channels.keys()].join(', ') || 'none'})`,
      });
      return t;
    }
    // A channel that reads from the database (the web inbox) has one card per request, whatever the target.
    if (channel.readsFromDatabase) return { type: t.type, target: '' };
    const target = t.target ?? channel.defaultTarget;
    if (!target)
      problems.push({
        path: `channels[${i}].target`,
        message: `channel "${t.type}" needs a target (no default configured)`,
      });
    return { type: t.type, target };
  });
  if (problems.length) throw new ValidationError(`${problems[0]!.path}: ${problems[0]!.message}`, problems);
  const unique = new Map(cards.map((c) => [`${c.type}\u0000${c.target ?? ''}`, c]));
  return [...unique.values()];
}
