/**
 * @module hooks/contributions
 * Amplifier's contribution channels: producers register under a channel name, a consumer pulls from all of
 * them when it needs the data. Pull, not push, so producers need not know who reads or when.
 */
import type { HookLogger } from './types.js';

/** Produces one contribution; `undefined` means "nothing this time". */
export type Contributor<T = unknown> = () => T | undefined | Promise<T | undefined>;

interface Entry {
  name: string;
  fn: Contributor;
}

/** Contributors by channel, with an optional parent whose contributors come first. */
export class ContributionChannels {
  private readonly channels = new Map<string, Entry[]>();

  constructor(
    private readonly logger: HookLogger,
    private readonly parent?: ContributionChannels,
  ) {}

  /** Adds a contributor; returns a function that removes it. */
  register<T>(channel: string, fn: Contributor<T>, name = fn.name || 'anonymous'): () => void {
    const entry: Entry = { name, fn };
    const list = this.channels.get(channel) ?? [];
    list.push(entry);
    this.channels.set(channel, list);
    return () => {
      const current = this.channels.get(channel);
      if (current)
        this.channels.set(
          channel,
          current.filter((e) => e !== entry),
        );
    };
  }

  /** Calls every contributor of the channel (the parent's first); a failing one is logged and skipped. */
  async collect<T>(channel: string): Promise<T[]> {
    const entries = this.entries(channel);
    const settled = await Promise.allSettled(entries.map(async (e) => e.fn()));
    const out: T[] = [];
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') {
        if (s.value !== undefined) out.push(s.value as T);
      } else {
        this.logger.error('contributor failed', { channel, contributor: entries[i]?.name, error: String(s.reason) });
      }
    });
    return out;
  }

  private entries(channel: string): Entry[] {
    return [...(this.parent?.entries(channel) ?? []), ...(this.channels.get(channel) ?? [])];
  }
}
