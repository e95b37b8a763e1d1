/**
 * @module channels/web/web-channel
 * The built-in web channel: always on, needs no credentials. Its "card" is the request's page in the web inbox,
 * read straight from the database, so `send` and `update` have nothing to call (open pages learn of changes from
 * the change feed). Decisions arrive through the pages' forms, as `web:<name>`.
 */
import { randomBytes } from 'node:crypto';
import type { Router } from 'express';
import type { Channel, ChannelHost } from '../../src/channel/channel.js';
import { WebAuth } from './auth.js';
import { webRoutes } from './routes.js';
import { SessionSigner } from './session.js';
import { ChangeStreams } from './stream.js';
import type { WebChannelOptions } from './web-config.js';
import type { PushService } from '../../src/push/service.js';

/** The web channel, with the one-time login links `tollgate serve` prints. */
export interface WebChannel extends Channel {
  readonly name: 'web';
  /**
   * A new one-time login link (`<base>/ui/login?token=…`) that signs in as `user` (default: the login-link user);
   * null when login links are turned off. `baseUrl` is the listening address; the configured public URL wins when
   * set. Resolves once the link is stored (on every replica, when they share a database), so it works the moment
   * anyone sees it. Rejects with `UnknownWebUserError` (a 400) for a name that is neither a configured user nor the
   * login-link user.
   */
  loginUrl(baseUrl: string, user?: string): Promise<string | null>;
  mount(router: Router, host: ChannelHost): void;
  stop(): Promise<void>;
  /** Turns on the inbox's Web Push routes with `service` (the composition root calls this before mounting). */
  usePush(service: PushService): void;
}

const DEFAULT_SESSION_TTL_MS = 12 * 3_600_000;

/**
 * Creates the web channel.
 * @example
 * const web = createWebChannel(webOptionsFromConfig(config));
 * console.log(`sign in: ${await web.loginUrl('http://127.0.0.1:8787')}`);
 */
export function createWebChannel(options: WebChannelOptions = {}): WebChannel {
  const now = options.now ?? Date.now;
  const auth = new WebAuth({
    users: options.users ?? [],
    loginLinks: options.loginLinks,
    linkUser: options.linkUser,
    marks: options.marks,
    now,
  });
  const oidc = options.oidc ?? null;
  // Without a configured secret, sessions are signed with a per-process key: they end when the process does.
  const signer = new SessionSigner(
    options.secret ?? randomBytes(32),
    options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
    now,
    options.marks ?? options.signOuts,
  );
  const streams = new ChangeStreams();
  const publicOrigin = options.publicUrl ? new URL(options.publicUrl).origin : null;
  let push: PushService | null = null;
  return {
    name: 'web',
    defaultTarget: '',
    readsFromDatabase: true,
    async send() {
      return null;
    },
    async update() {},
    usePush(service) {
      push = service;
    },
    async loginUrl(baseUrl, user) {
      const token = await auth.mintLoginToken(user);
      if (!token) return null;
      const base = (options.publicUrl ?? baseUrl).replace(/\/+$/, '');
      return `${base}/ui/login?token=${token}`;
    },
    mount(router, host) {
      oidc?.useClock(() => host.now());
      // The address `tollgate serve` prints is the root: a person who opens it wants the inbox, not a JSON 404.
      router.get('/', (_req, res) => res.redirect(302, '/ui'));
      router.use(
        '/ui',
        webRoutes({
          gateway: host,
          streams,
          signer,
          auth,
          publicOrigin,
          now: () => host.now(),
          mayDecide: host.mayDecide?.bind(host),
          directory: () => host.directory?.() ?? null,
          oidcClient: oidc,
          oidc: oidc ? { autoPeople: oidc.options.autoPeople, groupsMaxAgeS: oidc.options.groupsMaxAgeS } : null,
          push: () => push,
        }),
      );
    },
    async stop() {
      streams.closeAll();
    },
  };
}

/** Narrows a channel to the web channel (for the composition root, which only knows `Channel`). */
export function isWebChannel(channel: Channel | undefined): channel is WebChannel {
  return channel?.name === 'web' && typeof (channel as Partial<WebChannel>).loginUrl === 'function';
}

/**
 * The start-up line with a fresh one-time login link, or null when there is no web channel or links are off.
 * @example const line = await webLoginMessage(server.gateway.channels.get('web'), url); if (line) out(line);
 */
export async function webLoginMessage(channel: Channel | undefined, baseUrl: string): Promise<string | null> {
  const link = isWebChannel(channel) ? await channel.loginUrl(baseUrl) : null;
  return link ? `Web inbox: open ${link} to sign in (one-time link)` : null;
}
