/**
 * @module channels/slack/verify
 * Our half of checking a Slack callback. Bolt's receiver checks the signature (`v0=` + HMAC-SHA256 of
 * `v0:{timestamp}:{raw body}`) and rejects timestamps more than five minutes old; it does not reject timestamps in
 * the future, so a signature captured from a skewed or malicious clock would stay valid for as long as its timestamp
 * lies ahead. This guard runs first and holds the timestamp to a window on both sides, without touching the body.
 */
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/** Slack's replay window: five minutes either way. */
export const DEFAULT_REPLAY_WINDOW_S = 300;

/** Why a timestamp is refused, or null when it is acceptable. */
export function timestampProblem(
  header: string | undefined,
  nowMs: number,
  windowS = DEFAULT_REPLAY_WINDOW_S,
): string | null {
  if (header === undefined || header === '') return 'missing x-slack-request-timestamp';
  if (!/^\d{1,12}$/.test(header)) return 'x-slack-request-timestamp is not a number of seconds';
  const skew = Number(header) - Math.floor(nowMs / 1000);
  if (skew < -windowS) return `timestamp is ${-skew} s old (window ${windowS} s)`;
  if (skew > windowS) return `timestamp is ${skew} s in the future (window ${windowS} s)`;
  return null;
}

/**
 * Express middleware: 401 with an empty body (as Bolt answers) and one audit log line when the callback's timestamp
 * is outside the window or the signature header is missing; otherwise on to Bolt's signature check.
 */
export function replayGuard(options: { logger: Logger; now: () => number; windowS?: number }): RequestHandler {
  return (req, res, next) => {
    const signature = req.get('x-slack-signature');
    const problem = signature?.startsWith('v0=')
      ? timestampProblem(req.get('x-slack-request-timestamp'), options.now(), options.windowS)
      : 'missing or malformed x-slack-signature';
    if (problem) {
      options.logger.warn({ ip: req.ip, problem }, 'slack callback rejected');
      res.status(401).end();
      return;
    }
    next();
  };
}
