/**
 * @module events/sink-post
 * How a webhook sink is sent CloudEvents (`events/sink` decides what and when): the signed POST, as one batch or one
 * structured event, and the audit head's CloudEvent.
 */
import { createHmac } from 'node:crypto';
import { postOutbound } from '../utils/outbound.js';
import type { SinkConfig } from './config.js';

/** The CloudEvents type of a published audit head. */
export const ANCHOR_TYPE = 'dev.tollgate.audit.head';

/** Computes the signature header for `body` at `unixSeconds`. */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

/**
 * POSTs CloudEvents (each already JSON): as one batch (`application/cloudevents-batch+json`, a JSON array), or, for
 * a sink that takes no batches, the one event in structured mode. The body is signed as a whole; the target is
 * checked against the SSRF rules before every POST (its name may resolve elsewhere by now).
 * @throws Error when the sink answers other than 2xx, or the POST fails or is refused.
 */
export async function postCloudEvents(
  config: SinkConfig,
  deps: { now(): number; callbackAllow: readonly string[] },
  events: readonly string[],
): Promise<void> {
  const body = config.batch ? `[${events.join(',')}]` : events[0]!;
  const status = await postOutbound(
    config.url,
    {
      headers: {
        'content-type': config.batch
          ? 'application/cloudevents-batch+json; charset=utf-8'
          : 'application/cloudevents+json; charset=utf-8',
        'tollgate-signature': signatureHeader(config.secret, Math.floor(deps.now() / 1000), body),
      },
      body,
    },
    deps.callbackAllow,
  );
  if (status < 200 || status > 299) throw new Error(`${config.url} answered ${status}`);
}

/** The audit chain's signed head as the CloudEvent a sink is sent (`dev.tollgate.audit.head`). */
export function anchorCloudEvent(
  head: { event_id: number; hash: string; at: string; signature: string | null },
  source: string,
): Record<string, unknown> {
  return {
    specversion: '1.0',
    id: `head_${head.event_id}`,
    source,
    type: ANCHOR_TYPE,
    subject: String(head.event_id),
    time: head.at,
    datacontenttype: 'application/json',
    data: head,
  };
}
