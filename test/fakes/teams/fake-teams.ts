/**
 * A hand-written fake of the Bot Framework on 127.0.0.1 (port 0): the OpenID metadata and its JWKS (generated RSA keys,
 * each with its `endorsements` — the channels it may sign for — as the real key set lists them), the tenant's token endpoint (client credentials), and the connector API (`POST /v3/conversations/{id}/activities`,
 * `PUT …/activities/{id}`) answering 401 without a token it issued, recording every call and keeping every version of
 * every activity. It also plays Teams' side of the messaging endpoint: {@link FakeTeams.post} signs an activity's JWT
 * as the Bot Framework does (iss `https://api.botframework.com`, aud = app id, `serviceurl`) and posts it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

type Json = Record<string, unknown>;

/** One connector call the fake received. */
export interface RecordedCall {
  method: string;
  path: string;
  body: Json;
  authorization: string | null;
}

/** One activity the bot posted and its versions (first as posted, last as shown now). */
export interface FakeActivity {
  conversationId: string;
  id: string;
  versions: Json[];
}

/**
 * The published keys: `msteams` (the default, endorsed for Teams), `webchat` (a genuine key of the set endorsed for
 * Web Chat and Direct Line only), `unendorsed` (published without an `endorsements` list).
 */
export type FakeKeyName = 'msteams' | 'webchat' | 'unendorsed';

/** How to bend the JWT of a posted activity. */
export interface SignOptions {
  /** Sign with a key the metadata does not publish. */
  forged?: boolean;
  /** Sign with this published key (`msteams`). */
  key?: FakeKeyName;
  audience?: string;
  issuer?: string;
  /** Seconds from now until `exp` (3600); negative for an expired token. */
  expiresInS?: number;
  /** The `serviceurl` claim (defaults to the activity's). */
  serviceUrl?: string;
  /** Send no Authorization header at all. */
  none?: boolean;
}

/** What a post to the messaging endpoint returned. */
export interface PostResult {
  status: number;
  body: Json | null;
}

/** The fake Bot Framework. */
export class FakeTeams {
  readonly calls: RecordedCall[] = [];
  readonly tokensIssued: string[] = [];
  private readonly activities = new Map<string, FakeActivity>();
  private readonly failures: Array<{ status: number; retryAfterS?: number }> = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly appId: string,
    readonly appPassword: string,
    readonly tenantId: string,
    private readonly keys: Record<FakeKeyName, PublishedKey>,
    private readonly otherKey: CryptoKey,
  ) {}

  /** Starts a fake that issues tokens to `appId`/`appPassword` in `tenantId`. */
  static async start(options: { appId: string; appPassword: string; tenantId: string }): Promise<FakeTeams> {
    const published = async (endorsements?: string[]): Promise<PublishedKey> => {
      const { privateKey, publicKey } = await generateKeyPair('RS256');
      const kid = randomBytes(6).toString('hex');
      return {
        privateKey,
        jwk: {
          ...(await exportJWK(publicKey)),
          kid,
          use: 'sig',
          alg: 'RS256',
          ...(endorsements ? { endorsements } : {}),
        },
      };
    };
    const keys = {
      msteams: await published(['msteams']),
      webchat: await published(['webchat', 'directline']),
      unendorsed: await published(),
    };
    const other = await generateKeyPair('RS256');
    let fake: FakeTeams | null = null;
    const server = createServer((req, res) => void fake?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fake = new FakeTeams(server, url, options.appId, options.appPassword, options.tenantId, keys, other.privateKey);
    return fake;
  }

  /** `TEAMS_OPENID_METADATA_URL`. */
  get openIdMetadataUrl(): string {
    return `${this.url}/v1/.well-known/openidconfiguration`;
  }

  /** `TEAMS_LOGIN_URL`. */
  get loginUrl(): string {
    return `${this.url}/login`;
  }

  /** The serviceUrl activities come from (the connector lives here). */
  get serviceUrl(): string {
    return `${this.url}/teams/`;
  }

  /** Answers the next connector call with `status` (and `Retry-After` for a 429) instead of success. */
  failNext(status: number, retryAfterS?: number): void {
    this.failures.push({ status, retryAfterS });
  }

  /** Every activity the bot posted, in order. */
  allActivities(): FakeActivity[] {
    return [...this.activities.values()];
  }

  /** The activity a message reference (`<activity id>|<conversation id>`) names. */
  activity(activityId: string): FakeActivity | undefined {
    return this.activities.get(activityId);
  }

  /** A JWT as the Bot Framework attaches to activities. */
  async token(serviceUrl: string, options: SignOptions = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const key = this.keys[options.key ?? 'msteams'];
    return new SignJWT({ serviceurl: options.serviceUrl ?? serviceUrl })
      .setProtectedHeader({ alg: 'RS256', kid: key.jwk.kid!, typ: 'JWT' })
      .setIssuer(options.issuer ?? 'https://api.botframework.com')
      .setAudience(options.audience ?? this.appId)
      .setIssuedAt(now - 60)
      .setNotBefore(now - 60)
      .setExpirationTime(now + (options.expiresInS ?? 3600))
      .sign(options.forged ? this.otherKey : key.privateKey);
  }

  /** Posts `activity` to the messaging endpoint with a signed (or bent) JWT. */
  async post(endpoint: string, activity: Json, sign: SignOptions = {}): Promise<PostResult> {
    const full = {
      id: randomUUID(),
      channelId: 'msteams',
      serviceUrl: this.serviceUrl,
      timestamp: new Date().toISOString(),
      ...activity,
    };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (!sign.none) headers.authorization = `Bearer ${await this.token(String(full.serviceUrl), sign)}`;
    const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(full) });
    const text = await res.text();
    let body: Json | null = null;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = null;
    }
    return { status: res.status, body };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0]!;
    const send = (status: number, body: Json) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && path === '/v1/.well-known/openidconfiguration') {
      send(200, {
        issuer: 'https://api.botframework.com',
        authorization_endpoint: `${this.url}/v1/.well-known/auth`,
        jwks_uri: `${this.url}/v1/.well-known/keys`,
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['private_key_jwt'],
      });
      return;
    }
    if (req.method === 'GET' && path === '/v1/.well-known/keys') {
      send(200, { keys: Object.values(this.keys).map((k) => k.jwk) });
      return;
    }
    if (req.method === 'POST' && path === `/login/${this.tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(raw);
      if (
        form.get('grant_type') !== 'client_credentials' ||
        form.get('scope') !== 'https://api.botframework.com/.default'
      )
        return send(400, { error: 'invalid_request' });
      if (form.get('client_id') !== this.appId || form.get('client_secret') !== this.appPassword)
        return send(401, { error: 'invalid_client' });
      const token = `fake-${randomBytes(12).toString('hex')}`;
      this.tokensIssued.push(token);
      send(200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
      return;
    }
    const match = /^\/teams\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(path);
    if (!match) return send(404, { error: { code: 'NotFound', message: path } });
    const authorization = req.headers.authorization ?? null;
    const body = raw ? (JSON.parse(raw) as Json) : {};
    this.calls.push({ method: req.method ?? '', path, body, authorization });
    if (!this.tokensIssued.some((t) => authorization === `Bearer ${t}`))
      return send(401, { error: { code: 'Unauthorized', message: 'no valid token' } });
    const failure = this.failures.shift();
    if (failure) {
      if (failure.retryAfterS !== undefined) res.setHeader('retry-after', String(failure.retryAfterS));
      return send(failure.status, {
        error: { code: failure.status === 429 ? 'Throttled' : 'Failed', message: 'injected' },
      });
    }
    const conversationId = decodeURIComponent(match[1]!);
    if (req.method === 'POST' && !match[2]) {
      const id = `1${Date.now()}${this.activities.size}`;
      this.activities.set(id, { conversationId, id, versions: [body] });
      return send(201, { id });
    }
    if (req.method === 'PUT' && match[2]) {
      const activity = this.activities.get(decodeURIComponent(match[2]));
      if (!activity || activity.conversationId !== conversationId)
        return send(404, { error: { code: 'ActivityNotFoundInConversation', message: 'not found' } });
      activity.versions.push(body);
      return send(200, { id: activity.id });
    }
    send(405, { error: { code: 'BadArgument', message: 'method' } });
  }
}

/** A key of the published set: its private half signs, its JWK (with `kid` and any `endorsements`) is published. */
interface PublishedKey {
  privateKey: CryptoKey;
  jwk: JWK & { endorsements?: string[] };
}

/** The card of an activity version (its first Adaptive Card attachment). */
export function cardOf(activity: Json): Json | null {
  const attachments = activity.attachments as Array<{ contentType?: string; content?: Json }> | undefined;
  return attachments?.find((a) => a.contentType === 'application/vnd.microsoft.card.adaptive')?.content ?? null;
}

/** All visible text of a card (TextBlocks and facts). */
export function visibleText(card: Json): string {
  const parts: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const n = node as Json;
    if (n.type === 'TextBlock' && typeof n.text === 'string') parts.push(n.text.replace(/\\(.)/g, '$1'));
    if (n.type === 'FactSet')
      for (const f of n.facts as Array<{ title: string; value: string }>)
        parts.push(`${f.title}: ${f.value.replace(/\\(.)/g, '$1')}`);
    if (String(n.type).startsWith('Action.') && typeof n.title === 'string') parts.push(n.title);
    // A container Teams shows collapsed (`isVisible: false`) is not visible until its toggle is tapped.
    if (n.type === 'Container' && n.isVisible !== false) walk(n.items);
    walk(n.body);
    walk(n.actions);
  };
  walk(card);
  return parts.join('\n');
}
