/**
 * @module people/email-resolution
 * People given an email but no account on a channel are matched to their account there by the platform's own
 * look-up (Slack `users.lookupByEmail`, Feishu `batch_get_id`), in the background: a decision never waits for it.
 * Answers are cached with a TTL (in the database on PostgreSQL, so replicas ask the platform once between them) and
 * refreshed before they go stale. A look-up that fails leaves the person usable on every other channel, records why
 * (`unresolved`, shown by `tollgate people show` and `GET /v1/people/:id`), and is tried again a minute later; an
 * account found before stays in force while the platform is away.
 */
import type { Logger } from 'pino';
import type { Clock } from '../utils/clock.js';
import { describeError, ValidationError } from '../api/errors.js';
import type { Learned, PeopleSource } from './source.js';

/** A channel that can look people up by email (see `Channel.accountByEmail`). */
export interface EmailLookup {
  readonly name: string;
  accountByEmail?(email: string): Promise<string | null>;
}

/** One look-up's answer: the account, or why there is none. */
export interface Resolution {
  channel: string;
  /** Lower case. */
  email: string;
  account: string | null;
  /** Why the look-up failed (null when it answered, with an account or without). */
  error: string | null;
  resolvedAt: Date;
}

/** Where answers are kept between look-ups: memory on SQLite, `directory_resolutions` on PostgreSQL. */
export interface ResolutionCache {
  get(channel: string, email: string): Promise<Resolution | null>;
  put(resolution: Resolution): Promise<void>;
}

/** A cache in this process's memory. */
export class MemoryResolutionCache implements ResolutionCache {
  private readonly entries = new Map<string, Resolution>();
  async get(channel: string, email: string): Promise<Resolution | null> {
    return this.entries.get(`${channel}\u0000${email}`) ?? null;
  }
  async put(resolution: Resolution): Promise<void> {
    this.entries.set(`${resolution.channel}\u0000${resolution.email}`, resolution);
  }
}

/** `TOLLGATE_PEOPLE_LOOKUP_TTL_S` in milliseconds (default 6 h); a value that is not a positive number is an error naming it. */
export function resolutionTtlMs(env: Record<string, string | undefined>): number {
  const raw = env.TOLLGATE_PEOPLE_LOOKUP_TTL_S?.trim();
  if (!raw) return 6 * 3600_000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 60)
    throw new ValidationError(`TOLLGATE_PEOPLE_LOOKUP_TTL_S: expected seconds, at least 60: ${raw}`);
  return seconds * 1000;
}

/** Options of {@link EmailResolver}. */
export interface EmailResolverOptions {
  source: PeopleSource;
  channels: readonly EmailLookup[];
  cache: ResolutionCache;
  clock: Clock;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** How long an answer is trusted (default 6 h); refreshed every half of it. */
  ttlMs?: number;
  /** How soon a failed look-up is tried again (default 60 s). */
  retryMs?: number;
}

/** Resolves the directory's emails to channel accounts and teaches them to the {@link PeopleSource}. */
export class EmailResolver {
  private readonly ttlMs: number;
  private readonly retryMs: number;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: EmailResolverOptions) {
    this.ttlMs = options.ttlMs ?? 6 * 3600_000;
    this.retryMs = options.retryMs ?? 60_000;
  }

  /** The channels that can look people up; none means there is nothing to do. */
  private get lookups(): EmailLookup[] {
    return this.options.channels.filter((c) => typeof c.accountByEmail === 'function');
  }

  /** Looks up what is missing or stale, then puts the accounts in force. Concurrent calls share one run. */
  refresh(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  /** Resolves now (in the background), on every reload of the directory, and every retry interval after. */
  start(): void {
    if (!this.lookups.length) return;
    const kick = () =>
      void this.refresh().catch((error: unknown) =>
        this.options.logger.warn({ err: describeError(error) }, 'people: email resolution failed'),
      );
    kick();
    this.unsubscribe = this.options.source.onReplace(kick);
    // Cached answers make most runs free; the interval only decides how soon a stale or failed one is asked again.
    this.timer = setInterval(kick, Math.min(this.retryMs, this.ttlMs / 2));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    this.timer = null;
    this.unsubscribe = null;
  }

  private async run(): Promise<void> {
    const learned: Learned = new Map();
    for (const person of this.options.source.configured().people()) {
      if (!person.email) continue;
      const entry = { accounts: {} as Record<string, string>, unresolved: {} as Record<string, string> };
      for (const channel of this.lookups) {
        if (person.accounts[channel.name]) continue;
        const answer = await this.resolution(channel, person.email.toLowerCase());
        if (answer.account) entry.accounts[channel.name] = answer.account;
        else entry.unresolved[channel.name] = answer.error ?? `no ${channel.name} user has this email`;
      }
      learned.set(person.id, entry);
    }
    this.options.source.learn(learned);
  }

  /** The cached answer while fresh, else the platform's (kept for the next run and the other replicas). */
  private async resolution(channel: EmailLookup, email: string): Promise<Resolution> {
    const now = this.options.clock.now();
    const cached = await this.options.cache.get(channel.name, email);
    if (cached && now - cached.resolvedAt.getTime() < (cached.error ? this.retryMs : this.ttlMs)) return cached;
    let answer: Resolution;
    try {
      answer = {
        channel: channel.name,
        email,
        account: await channel.accountByEmail!(email),
        error: null,
        resolvedAt: new Date(now),
      };
    } catch (error) {
      const why = describeError(error);
      this.options.logger.warn(
        { channel: channel.name, err: why },
        'people: email look-up failed; the person stays usable on their other channels',
      );
      // A platform outage does not take away an account already known: keep it (unsaved, so the next run asks again).
      if (cached?.account) return cached;
      answer = {
        channel: channel.name,
        email,
        account: null,
        error: `look-up failed: ${why}`,
        resolvedAt: new Date(now),
      };
    }
    await this.options.cache.put(answer);
    return answer;
  }
}
