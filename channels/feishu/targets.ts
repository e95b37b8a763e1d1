/**
 * @module channels/feishu/targets
 * Where a card goes. A request's Feishu target is a chat id, a user id or an email; the Open API needs to be told
 * which (`receive_id_type`). The kind is read from the id's shape, or from an explicit `type:` prefix.
 */
import { createHash } from 'node:crypto';
import { PermanentChannelError } from '../../src/channel/channel.js';

/** The `receive_id_type` values tollgate sends to. */
export type ReceiveIdType = 'chat_id' | 'open_id' | 'user_id' | 'union_id' | 'email';

/** A target resolved for `im.message.create`. */
export interface ReceiveTarget {
  receiveIdType: ReceiveIdType;
  receiveId: string;
}

const EXPLICIT = /^(chat_id|open_id|user_id|union_id|email):(.+)$/;

/**
 * Resolves a target: `chat_id:…`, `open_id:…`, `user_id:…`, `union_id:…`, `email:…` say it outright; otherwise
 * `oc_…` is a chat (the usual case: a group), `ou_…` an open id, `on_…` a union id, anything with `@` an email, and
 * the rest a tenant user id.
 * @throws PermanentChannelError for an empty target (retrying cannot help).
 * @example parseTarget('oc_5ad11d72b830411d72b836c20') // { receiveIdType: 'chat_id', receiveId: 'oc_5ad1…' }
 */
export function parseTarget(target: string): ReceiveTarget {
  const trimmed = target.trim();
  if (!trimmed)
    throw new PermanentChannelError(
      'Feishu target is empty: give a chat id (oc_…), an open id (ou_…), a user id or an email',
      'invalid_target',
    );
  const explicit = EXPLICIT.exec(trimmed);
  if (explicit) return { receiveIdType: explicit[1] as ReceiveIdType, receiveId: explicit[2]!.trim() };
  if (trimmed.startsWith('oc_')) return { receiveIdType: 'chat_id', receiveId: trimmed };
  if (trimmed.startsWith('ou_')) return { receiveIdType: 'open_id', receiveId: trimmed };
  if (trimmed.startsWith('on_')) return { receiveIdType: 'union_id', receiveId: trimmed };
  if (trimmed.includes('@')) return { receiveIdType: 'email', receiveId: trimmed };
  return { receiveIdType: 'user_id', receiveId: trimmed };
}

/**
 * The `uuid` of a card send: the same for every retry of one request's card to one target, so Feishu keeps one card
 * even when an answer was lost and the job sent again (Feishu de-duplicates a uuid for an hour; max 50 characters).
 */
export function sendUuid(requestId: string, target: string): string {
  return `tg-${createHash('sha256').update(`${requestId}\u0000${target}`).digest('hex').slice(0, 40)}`;
}
