/**
 * @module channels/slack/payload-guard
 * A correct signature proves who sent a callback, not that it has the shape Bolt's listeners expect: `payload=null`,
 * `actions:"x"` or `view:null` used to crash inside Bolt (500), and types we do not listen to made Bolt answer 404 after
 * three seconds. This guard runs before Bolt's receiver: it reads the raw body once (handing it on as `req.rawBody`,
 * which Bolt reads instead of the stream), and for a *signed* callback whose payload is not JSON answers 400, and for
 * one whose shape we do not handle answers 200 (Slack's ack) and logs it. Unsigned or forged callbacks go on to Bolt,
 * which answers 401 as before. Nothing here changes state.
 */
import { isValidSlackRequest } from '@slack/bolt';
import type { RequestHandler } from 'express';
import { parse as parseQuery } from 'node:querystring';
import type { Logger } from 'pino';

/** Slack's documented maximum for interactivity payloads is far below this. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/** Why a parsed payload is not one tollgate handles, or null when it is. */
export function payloadProblem(payload: unknown): string | null {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return 'payload is not an object';
  const p = payload as Record<string, unknown>;
  if ('ssl_check' in p || p.type === 'url_verification') return null;
  const user = p.user as { id?: unknown } | null | undefined;
  switch (p.type) {
    case 'block_actions':
      if (
        !Array.isArray(p.actions) ||
        !p.actions.every(
          (a) => a !== null && typeof a === 'object' && typeof (a as { action_id?: unknown }).action_id === 'string',
        )
      )
        return 'block_actions without an actions list';
      if (typeof user?.id !== 'string') return 'block_actions without user.id';
      return null;
    case 'view_submission':
      if (p.view === null || typeof p.view !== 'object') return 'view_submission without a view';
      if (typeof user?.id !== 'string') return 'view_submission without user.id';
      return null;
    default:
      return `payload type ${JSON.stringify(p.type ?? null).slice(0, 40)} is not one tollgate handles`;
  }
}

/** The guard; `signingSecret` is the same secret Bolt verifies with. */
export function slackPayloadGuard(options: {
  signingSecret: string;
  logger: Logger;
  now: () => number;
}): RequestHandler {
  return (req, res, next) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
    });
    req.on('error', next);
    req.on('end', () => {
      if (size > BODY_LIMIT_BYTES) {
        res.status(413).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      (req as unknown as { rawBody: Buffer }).rawBody = raw;
      const body = raw.toString('utf8');
      const signed = isValidSlackRequest({
        signingSecret: options.signingSecret,
        body,
        headers: {
          'x-slack-signature': req.get('x-slack-signature') ?? '',
          'x-slack-request-timestamp': Number(req.get('x-slack-request-timestamp')),
        },
        nowMilliseconds: options.now(),
      });
      // Forged or unsigned: Bolt answers 401 and logs it, as for every other bad signature.
      if (!signed) return next();
      let payload: unknown;
      try {
        payload = req.is('application/x-www-form-urlencoded') ? formPayload(body) : JSON.parse(body);
      } catch {
        options.logger.warn({ ip: req.ip }, 'slack callback refused: payload is not JSON');
        res.status(400).end();
        return;
      }
      const problem = payloadProblem(payload);
      if (!problem) return next();
      options.logger.warn({ ip: req.ip, problem }, 'slack callback ignored');
      res.status(200).end();
    });
  };
}

function formPayload(body: string): unknown {
  const form = parseQuery(body);
  return typeof form.payload === 'string' ? JSON.parse(form.payload) : form;
}
