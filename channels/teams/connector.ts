/**
 * @module channels/teams/connector
 * The outgoing half of the Bot Framework: a client-credentials token from the tenant's token endpoint (cached until
 * shortly before it expires), then the connector REST API at the conversation's serviceUrl. Plain fetch, because the
 * SDK's token provider cannot be pointed at another authority; errors become the channel contract's errors here.
 */
import { PermanentChannelError, RateLimitedError } from '../../src/channel/channel.js';

/** What the connector needs. */
export interface ConnectorOptions {
  appId: string;
  appPassword: string;
  tenantId: string;
  loginUrl: string;
  timeoutMs?: number;
}

/** The scope of a Bot Framework connector token. */
export const BOT_FRAMEWORK_SCOPE = 'https://api.botframework.com/.default';

/** Calls the connector API with a bot token. */
export class BotConnector {
  private token: { value: string; until: number } | null = null;

  constructor(private readonly options: ConnectorOptions) {}

  /** `POST {serviceUrl}/v3/conversations/{id}/activities`; returns the new activity id. */
  async sendActivity(serviceUrl: string, conversationId: string, activity: Record<string, unknown>): Promise<string> {
    const body = (await this.call(
      'POST',
      `${trim(serviceUrl)}/v3/conversations/${encodeURIComponent(conversationId)}/activities`,
      activity,
    )) as { id?: unknown };
    if (typeof body.id !== 'string') throw new Error('teams: the connector answered without an activity id');
    return body.id;
  }

  /** `PUT {serviceUrl}/v3/conversations/{id}/activities/{activityId}`. */
  async updateActivity(
    serviceUrl: string,
    conversationId: string,
    activityId: string,
    activity: Record<string, unknown>,
  ): Promise<void> {
    const path = `${trim(serviceUrl)}/v3/conversations/${encodeURIComponent(conversationId)}/activities/${encodeURIComponent(activityId)}`;
    await this.call('PUT', path, { ...activity, id: activityId });
  }

  private async call(method: string, url: string, body: unknown): Promise<unknown> {
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${await this.accessToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
    });
    if (res.status === 401) this.token = null; // a revoked or rotated token: fetch a fresh one on the retry
    if (res.ok) return res.status === 204 ? {} : await res.json().catch(() => ({}));
    const detail = (await res.text().catch(() => '')).slice(0, 300);
    if (res.status === 429)
      throw new RateLimitedError(
        `teams: ${method} ${new URL(url).pathname} rate limited`,
        Number(res.headers.get('retry-after') ?? '1') * 1000,
      );
    if (res.status === 400 || res.status === 403 || res.status === 404)
      throw new PermanentChannelError(`teams: ${method} answered ${res.status}: ${detail}`, String(res.status));
    throw new Error(`teams: ${method} answered ${res.status}: ${detail}`);
  }

  private async accessToken(): Promise<string> {
    if (this.token && this.token.until > Date.now()) return this.token.value;
    const { appId, appPassword, tenantId, loginUrl } = this.options;
    const res = await fetch(`${trim(loginUrl)}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: appId,
        client_secret: appPassword,
        scope: BOT_FRAMEWORK_SCOPE,
      }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
    });
    const body = (await res.json().catch(() => ({}))) as {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
    };
    if (!res.ok || typeof body.access_token !== 'string') {
      const why = `teams: token endpoint answered ${res.status}${typeof body.error === 'string' ? ` (${body.error})` : ''}`;
      // Bad credentials will not fix themselves; a 5xx may.
      throw res.status === 400 || res.status === 401 ? new PermanentChannelError(why, 'token_refused') : new Error(why);
    }
    const lifetimeS = typeof body.expires_in === 'number' ? body.expires_in : 3600;
    this.token = { value: body.access_token, until: Date.now() + Math.max(0, lifetimeS - 300) * 1000 };
    return this.token.value;
  }
}

function trim(url: string): string {
  return url.replace(/\/+$/, '');
}
