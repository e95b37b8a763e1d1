/**
 * @module cli/login-link
 * `tollgate login-link [--user U]`: asks the running gateway for a new one-time web login link (the one `serve`
 * printed was used or lost), over `POST /v1/web/login-links` with an admin `TOLLGATE_TOKEN`. No restart, and it works
 * against any replica: on PostgreSQL the link is spendable on every one.
 */
import { describeError } from '../api/errors.js';
import { terminalText } from '../utils/terminal-text.js';
import { flag, parseArgs, UsageError } from './args.js';

/** Streams and environment of the command (replaceable in tests). */
export interface LoginLinkIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: Record<string, string | undefined>;
}

/** Runs `tollgate login-link`; resolves with the exit code (0 printed a link, 1 the gateway refused or is away). */
export async function run(
  argv: string[],
  io: LoginLinkIo = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const args = parseArgs(argv, { values: ['user'], booleans: ['json'] });
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected "${args.positionals[0]}": tollgate login-link [--user NAME]`);
  const token = io.env.TOLLGATE_TOKEN;
  if (!token)
    throw new UsageError(
      'set TOLLGATE_TOKEN to an admin token (the one tollgate serve printed, or one from TOLLGATE_API_TOKENS)',
    );
  const base = (io.env.TOLLGATE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
  const user = flag(args, 'user');
  let res: Response;
  try {
    res = await fetch(`${base}/v1/web/login-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(user === undefined ? {} : { user }),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    io.stderr.write(
      `tollgate login-link: cannot reach ${base} (${describeError(error)}); is tollgate serve running, and TOLLGATE_URL right?\n`,
    );
    return 1;
  }
  const body = (await res.json().catch(() => ({}))) as { url?: string; detail?: string; title?: string };
  if (res.status !== 201 || !body.url) {
    io.stderr.write(
      `tollgate login-link: ${res.status} ${terminalText(String(body.detail ?? body.title ?? 'the gateway refused'))}\n`,
    );
    return 1;
  }
  io.stdout.write(flag(args, 'json') === 'true' ? `${JSON.stringify(body)}\n` : `${body.url}\n`);
  return 0;
}
