/**
 * @module client/connection
 * Where the gateway is and which token to send, read from options or the environment in one place: for
 * {@link GateClient} and for `tollgate claude-hook`, which talks to the gateway without loading the client (it must
 * start fast), so both read `TOLLGATE_URL` / `TOLLGATE_TOKEN` alike and fail with the same words. Those words are
 * read by someone who may have just installed tollgate (a hook's refusal is shown in their agent): each says what is
 * wrong and what to run.
 */
import { describeError } from '../api/errors.js';
import { GateClientError } from './errors.js';

/** How a token that may file requests is made: the command named wherever one is missing or refused. */
const MAKE_TOKEN =
  'create one with `tollgate token create my-agent --scope request:create` (TOLLGATE_TOKEN set to the admin token `tollgate serve` printed) and set TOLLGATE_TOKEN to the secret it prints';

/** The gateway's base URL (no trailing slash) and the bearer token. */
export interface GatewayConnection {
  url: string;
  token: string;
}

/**
 * Reads the connection: `url` or `TOLLGATE_URL` (default `http://127.0.0.1:8787`), `token` or `TOLLGATE_TOKEN`
 * (required). Throws a {@link GateClientError} with code `client_config` when either is unusable, worded for the
 * `caller`: a program using {@link GateClient} (the default) or an agent's hook, whose user passes no options.
 */
export function gatewayConnection(
  options: {
    url?: string;
    token?: string;
    env?: Record<string, string | undefined>;
    caller?: 'client' | 'hook';
  } = {},
): GatewayConnection {
  const env = options.env ?? process.env;
  const url = (options.url ?? env.TOLLGATE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(url)) throw configError(`gateway URL must start with http:// or https://, got "${url}"`);
  const token = options.token ?? env.TOLLGATE_TOKEN;
  if (!token)
    throw configError(
      options.caller === 'hook'
        ? `TOLLGATE_TOKEN is not set in the agent's environment, so nobody can be asked: ${MAKE_TOKEN} before starting the agent`
        : `no API token: pass token to GateClient, or ${MAKE_TOKEN}`,
    );
  return { url, token };
}

/** Network errors that mean nothing listens at the URL (or the name does not resolve): the gateway is not running there. */
const NOT_THERE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * The error for a gateway that gave no answer: `cannot reach the gateway at URL: why`, and when nothing listens there,
 * what to run. {@link GateClient} and the hooks' HTTP/1 client throw it alike.
 */
export function unreachableError(url: string, error: unknown): GateClientError {
  let code: unknown;
  for (let e: unknown = error; e instanceof Error && code === undefined; e = e.cause)
    code = (e as { code?: unknown }).code;
  const hint = NOT_THERE.has(String(code))
    ? '. Is tollgate running? Start it with `tollgate serve` (`npm start` in a clone), or set TOLLGATE_URL to where it runs'
    : '';
  return new GateClientError(`cannot reach the gateway at ${url}: ${describeError(error)}${hint}`, 0, null, {
    cause: error,
  });
}

/**
 * A refusal from the gateway in a hook's words: a 401 or 403 says which token to make, anything else is `gateway
 * answered STATUS: detail`.
 */
export function refusalText(error: GateClientError, url: string): string {
  if (error.status === 401)
    return `the gateway at ${url} does not accept TOLLGATE_TOKEN (${error.message}): ${MAKE_TOKEN}`;
  if (error.status === 403) return `TOLLGATE_TOKEN may not file requests at ${url} (${error.message}): ${MAKE_TOKEN}`;
  return `${error.status ? `gateway answered ${error.status}: ` : ''}${error.message}`;
}

function configError(detail: string): GateClientError {
  return new GateClientError(detail, 0, {
    type: 'https://tollgate.dev/problems/client_config',
    title: 'Client configuration',
    status: 0,
    detail,
  });
}
