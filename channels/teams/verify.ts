/**
 * @module channels/teams/verify
 * Authenticates an activity Teams posts: the `Authorization: Bearer <JWT>` header must carry a token signed by a key
 * from the Bot Framework's OpenID metadata (`jwks_uri`), issued by `https://api.botframework.com`, for this bot's app
 * id, not expired (five minutes of clock skew allowed), whose `serviceurl` claim equals the activity's serviceUrl; and
 * the activity must say it comes from Teams (`channelId: "msteams"`) with a key endorsed for msteams.
 *
 * Why endorsements: the Bot Framework signs the activities of every channel (Web Chat, Direct Line, Slack…) with keys
 * of the same set, and each key lists the channels it may sign for. Without the check, anyone who can talk to this
 * bot through another channel (a Web Chat page) gets a genuinely signed activity carrying any `from.aadObjectId`. The
 * SDK (botframework-connector's `JwtTokenExtractor` with `EndorsementsValidator`) rejects an activity whose channelId
 * the signing key does not endorse; this check is stricter in two ways: the channelId must be `msteams`, and a key
 * that lists no endorsements at all does not vouch for Teams.
 *
 * Why jose and not `@microsoft/agents-hosting`'s `authorizeJWT`: the SDK (1.8.1, `buildJwksUri`) hard-codes
 * `https://login.botframework.com/v1/.well-known/keys` for this issuer, so it cannot be pointed at a fake and its
 * checks could never run in a test. The checks here are the same ones, made against `TEAMS_OPENID_METADATA_URL`.
 */
import { createRemoteJWKSet, jwtVerify, type JWK, type RemoteJWKSet } from 'jose';

/** The issuer of the tokens the Bot Framework attaches to activities. */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
/** The `channelId` of activities from Microsoft Teams, and the endorsement a key must carry to sign them. */
export const TEAMS_CHANNEL_ID = 'msteams';

/** The fields of an activity its token is checked against. */
export interface SignedActivity {
  serviceUrl?: unknown;
  channelId?: unknown;
}

/** What {@link TeamsTokenVerifier} needs. */
export interface TeamsVerifyOptions {
  appId: string;
  openIdMetadataUrl: string;
  /** The current time in ms (the gateway's clock). */
  now: () => number;
  /** Allowed clock skew in seconds (300). */
  clockToleranceS?: number;
}

/** Verifies Bot Framework JWTs; the key set is fetched once and refreshed by jose when an unknown `kid` shows up. */
export class TeamsTokenVerifier {
  private keys: Promise<RemoteJWKSet> | null = null;

  constructor(private readonly options: TeamsVerifyOptions) {}

  /**
   * Null when `authorization` authenticates `activity` as one from Teams; otherwise why not (for the log line).
   * @example await verifier.problem(req.get('authorization'), activity) // null
   */
  async problem(authorization: string | undefined, activity: SignedActivity): Promise<string | null> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) return 'missing bearer token';
    try {
      const keys = await this.keySet();
      const { payload, protectedHeader } = await jwtVerify(token, keys, {
        issuer: BOT_FRAMEWORK_ISSUER,
        audience: this.options.appId,
        algorithms: ['RS256'],
        clockTolerance: this.options.clockToleranceS ?? 300,
        currentDate: new Date(this.options.now()),
      });
      // A token minted for one service URL must not vouch for an activity that asks us to talk to another.
      const claimed = payload.serviceurl ?? payload.serviceUrl;
      const { serviceUrl, channelId } = activity;
      if (typeof claimed !== 'string' || typeof serviceUrl !== 'string' || trimSlash(claimed) !== trimSlash(serviceUrl))
        return 'serviceurl claim does not match the activity';
      if (channelId !== TEAMS_CHANNEL_ID)
        return `channelId is ${JSON.stringify(channelId ?? null).slice(0, 80)}, not "${TEAMS_CHANNEL_ID}"`;
      // The key that verified the signature is the one of the cached set with the token's kid (jose picks exactly one).
      const signers = (keys.jwks()?.keys ?? []).filter((k) => k.kid === protectedHeader.kid);
      if (!signers.length || !signers.every((k) => endorses(k, TEAMS_CHANNEL_ID)))
        return `signing key ${protectedHeader.kid ?? '(no kid)'} is not endorsed for ${TEAMS_CHANNEL_ID}`;
      return null;
    } catch (error) {
      if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_J'))
        return `${error.code}: ${error.message}`;
      // A metadata fetch that failed is retried on the next activity rather than cached forever.
      this.keys = null;
      return `token not verified: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  private keySet(): Promise<RemoteJWKSet> {
    this.keys ??= (async () => {
      const res = await fetch(this.options.openIdMetadataUrl, { signal: AbortSignal.timeout(10_000) });
      if (!res.ok) throw new Error(`OpenID metadata answered ${res.status}`);
      const metadata = (await res.json()) as { jwks_uri?: unknown };
      if (typeof metadata.jwks_uri !== 'string') throw new Error('OpenID metadata has no jwks_uri');
      return createRemoteJWKSet(new URL(metadata.jwks_uri));
    })();
    return this.keys;
  }
}

/** Whether the published key `jwk` lists `channelId` among its `endorsements`. */
function endorses(jwk: JWK, channelId: string): boolean {
  const endorsements = (jwk as JWK & { endorsements?: unknown }).endorsements;
  return Array.isArray(endorsements) && endorsements.includes(channelId);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '').toLowerCase();
}
