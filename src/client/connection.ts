/**
 * @module client/connection
 * Where the gateway is and which token to send, read from options or the environment in one place: for
 * {@link GateClient} and for `tollgate claude-hook`, which talks to the gateway without loading the client (it must
 * start fast), so both read `TOLLGATE_URL` / `TOLLGATE_TOKEN` alike and fail with the same words.
 */
import { GateClientError } from './errors.js';

/** The gateway's base URL (no trailing slash) and the bearer token. */
export interface GatewayConnection {
  url: string;
  token: string;
}

/**
 * Reads the connection: `url` or `TOLLGATE_URL` (default `http://127.0.0.1:8787`), `token` or `TOLLGATE_TOKEN`
 * (required). Throws a {@link GateClientError} with code `client_config` when either is unusable.
 */
export function gatewayConnection(
  options: { url?: string; token?: string; env?: Record<string, string | undefined> } = {},
): GatewayConnection {
  const env = options.env ?? process.env;
  const url = (options.url ?? env.TOLLGATE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(url)) throw configError(`gateway URL must start with http:// or https://, got "${url}"`);
  const token = options.token ?? env.TOLLGATE_TOKEN;
  if (!token) throw configError('no API token: set TOLLGATE_TOKEN (or pass token to GateClient)');
  return { url, token };
}

function configError(detail: string): GateClientError {
  return new GateClientError(detail, 0, {
    type: 'https://tollgate.dev/problems/client_config',
    title: 'Client configuration',
    status: 0,
    detail,
  });
}
