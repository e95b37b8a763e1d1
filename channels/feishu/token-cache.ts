/**
 * @module channels/feishu/token-cache
 * The channel's own tenant-token cache. The SDK's default cache is process-wide per app id; an own cache lets the
 * channel drop a token Feishu has revoked (the next call fetches a new one) without touching other clients.
 */
import type { Cache } from '@larksuiteoapi/node-sdk';

type CacheKey = Parameters<Cache['set']>[0];

/** A small in-memory cache with the SDK's `Cache` shape. */
export class TokenCache implements Cache {
  private readonly entries = new Map<string, { value: unknown; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async set(key: CacheKey, value: unknown, expire?: number, options?: { namespace?: string }): Promise<boolean> {
    this.entries.set(this.key(key, options), { value, expiresAt: expire ?? Number.POSITIVE_INFINITY });
    return true;
  }

  async get(key: CacheKey, options?: { namespace?: string }): Promise<unknown> {
    const entry = this.entries.get(this.key(key, options));
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(this.key(key, options));
      return undefined;
    }
    return entry.value;
  }

  /** Forgets every token, e.g. after Feishu answered "invalid access token". */
  clear(): void {
    this.entries.clear();
  }

  private key(key: CacheKey, options?: { namespace?: string }): string {
    return `${options?.namespace ?? ''}\u0000${String(key)}`;
  }
}
