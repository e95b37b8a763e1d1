/**
 * Interactivity callbacks as Slack sends them: a JSON payload in the `payload` field of an
 * `application/x-www-form-urlencoded` body, signed with `v0=` + hex HMAC-SHA256(signing secret, `v0:{ts}:{body}`)
 * in `x-slack-signature`, the timestamp (seconds) in `x-slack-request-timestamp`. Written from Slack's description,
 * independently of the adapter's code, so a mistake in one does not hide in the other.
 */
import { createHmac } from 'node:crypto';

/** Slack's signature of `body` at `timestamp` (seconds). */
export function slackSignature(secret: string, timestamp: number | string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** The form body Slack posts for an interactivity payload. */
export function formBody(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** How to bend a callback for a negative test. */
export interface CallbackOptions {
  /** Seconds since the epoch to sign with (default: now). */
  timestamp?: number;
  /** Replaces the computed signature. */
  signature?: string;
  /** Sign with this secret instead (a forger's guess). */
  secret?: string;
  /** Changes the body after it was signed (tampering in transit). */
  tamper?: (body: string) => string;
  /** Leave out the signature and timestamp headers. */
  unsigned?: boolean;
}

/** Posts a signed interactivity callback to `url` and returns the response. */
export async function postSlackCallback(
  url: string,
  secret: string,
  payload: unknown,
  options: CallbackOptions = {},
): Promise<Response> {
  const body = formBody(payload);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (!options.unsigned) {
    headers['x-slack-request-timestamp'] = String(timestamp);
    headers['x-slack-signature'] = options.signature ?? slackSignature(options.secret ?? secret, timestamp, body);
  }
  return fetch(url, { method: 'POST', headers, body: options.tamper ? options.tamper(body) : body });
}

let triggers = 0;

/** A `block_actions` payload for a tap on a button of the message `channel`/`ts`. */
export function blockActionsPayload(input: {
  userId: string;
  channel: string;
  ts: string;
  actionId: string;
  value: string;
  responseUrl: string;
  blocks?: unknown[];
}): Record<string, unknown> {
  triggers += 1;
  return {
    type: 'block_actions',
    user: {
      id: input.userId,
      username: input.userId.toLowerCase(),
      name: input.userId.toLowerCase(),
      team_id: 'T0FAKE',
    },
    api_app_id: 'A0FAKE',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: input.ts, channel_id: input.channel, is_ephemeral: false },
    trigger_id: `${triggers}.1700000000.fake${triggers}`,
    team: { id: 'T0FAKE', domain: 'fake' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: input.channel, name: 'approvals' },
    message: {
      type: 'message',
      ts: input.ts,
      bot_id: 'B0BOT',
      user: 'U0BOT',
      text: 'card',
      blocks: input.blocks ?? [],
    },
    state: { values: {} },
    response_url: input.responseUrl,
    actions: [
      {
        type: 'button',
        action_id: input.actionId,
        block_id: 'tollgate_actions',
        text: { type: 'plain_text', text: 'button', emoji: false },
        value: input.value,
        action_ts: `${Math.floor(Date.now() / 1000)}.000001`,
      },
    ],
  };
}

/** A `view_submission` payload for a modal the fake opened, with `values` typed into its inputs. */
export function viewSubmissionPayload(input: {
  userId: string;
  view: Record<string, unknown>;
  values: Record<string, Record<string, string>>;
}): Record<string, unknown> {
  const values = Object.fromEntries(
    Object.entries(input.values).map(([block, actions]) => [
      block,
      Object.fromEntries(
        Object.entries(actions).map(([action, value]) => [action, { type: 'plain_text_input', value }]),
      ),
    ]),
  );
  return {
    type: 'view_submission',
    team: { id: 'T0FAKE', domain: 'fake' },
    user: {
      id: input.userId,
      username: input.userId.toLowerCase(),
      name: input.userId.toLowerCase(),
      team_id: 'T0FAKE',
    },
    api_app_id: 'A0FAKE',
    token: 'legacy-verification-token',
    trigger_id: `${++triggers}.1700000000.fake`,
    view: {
      team_id: 'T0FAKE',
      app_id: 'A0FAKE',
      bot_id: 'B0BOT',
      hash: 'h',
      root_view_id: input.view.id,
      previous_view_id: null,
      clear_on_close: false,
      notify_on_close: false,
      ...input.view,
      state: { values },
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}
