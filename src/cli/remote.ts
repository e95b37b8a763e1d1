/**
 * @module cli/remote
 * How CLI commands that talk to a running gateway reach it: `TOLLGATE_URL` (default http://127.0.0.1:8787) and
 * `TOLLGATE_TOKEN`, JSON in and out, and the gateway's problem+json turned into one plain sentence.
 */
import { describeError } from '../api/errors.js';
import { UsageError } from './args.js';

/** A call the gateway refused or could not take: `message` is what the user reads. */
export class RemoteError extends Error {
  override readonly name = 'RemoteError';
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** How one call is sent: a body other than JSON (`type`: sent as the string it is), a longer wait than 15 s. */
export interface CallOptions {
  type?: string;
  timeoutMs?: number;
}

/** A gateway reached with one token. */
export interface Remote {
  base: string;
  /** Sends `body` as JSON (or as text of `options.type`) and resolves with the JSON answer; a refusal is a {@link RemoteError}. */
  call<T>(method: 'GET' | 'POST', path: string, body?: unknown, options?: CallOptions): Promise<T>;
}

/** The gateway of `env`; a UsageError when no token is set. */
export function remoteFrom(
  env: Record<string, string | undefined>,
  what = 'a decide token bound to you (tollgate token create me --scope request:decide --as person:<you>)',
): Remote {
  const token = env.TOLLGATE_TOKEN;
  if (!token) throw new UsageError(`set TOLLGATE_TOKEN to ${what}`);
  const base = (env.TOLLGATE_URL || 'http://127.0.0.1:8787').replace(/\/+$/, '');
  return {
    base,
    async call<T>(method: 'GET' | 'POST', path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
      let res: Response;
      try {
        res = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': options.type ?? 'application/json' }),
          },
          body: body === undefined ? undefined : options.type ? String(body) : JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
        });
      } catch (error) {
        throw new RemoteError(
          `cannot reach ${base} (${describeError(error)}); is tollgate serve running, and TOLLGATE_URL right?`,
          null,
        );
      }
      const text = await res.text();
      const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      if (res.ok) return json as T;
      const detail =
        typeof json.detail === 'string'
          ? json.detail
          : typeof json.title === 'string'
            ? json.title
            : `HTTP ${res.status}`;
      throw new RemoteError(res.status === 401 ? `the gateway refused TOLLGATE_TOKEN (${detail})` : detail, res.status);
    },
  };
}
