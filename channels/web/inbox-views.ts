/**
 * @module channels/web/inbox-views
 * The inbox's views of one person: what waits for them (they are listed by account, person or group and have not
 * voted), what they decided, what was filed for them (`user_id` is them), and every pending request. Each is read
 * fresh from the gateway at every page load, so the live stream only has to say "something changed".
 */
import type { ChannelHost } from '../../src/channel/channel.js';
import { requesterPeople } from '../../src/people/approvers.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import type { WebIdentity } from './identity.js';

/** The inbox's tabs. */
export const INBOX_VIEWS = ['waiting', 'decided', 'filed', 'all'] as const;
/** One tab. */
export type InboxView = (typeof INBOX_VIEWS)[number];

/** A view's requests, and whether more exist than shown. */
export interface InboxRows {
  items: ConfirmationRequest[];
  more: boolean;
}

/** How many rows "filed for me" looks through: an inbox, not an export (the audit page finds the rest). */
const FILED_SCAN = 1000;

/**
 * The tab asked for, else the default: "waiting for me" for someone who signed in through the provider (a person),
 * "all pending" for a local user or login link (who often administers rather than approves).
 */
export function inboxView(asked: unknown, identity: WebIdentity): InboxView {
  return (INBOX_VIEWS as readonly unknown[]).includes(asked) ? (asked as InboxView) : identity.oidc ? 'waiting' : 'all';
}

/** Pending requests `identity` may decide and has not approved yet, newest first. */
export async function waitingRows(host: ChannelHost, identity: WebIdentity, limit: number): Promise<InboxRows> {
  if (identity.account === null) return { items: [], more: false };
  if (host.waitingFor) {
    const items = await host.waitingFor(identity.account, limit + 1, identity.groups);
    return { items: items.slice(0, limit), more: items.length > limit };
  }
  // A host without the directory: the account must be listed as written.
  const page = await host.list({ status: 'pending', limit });
  return {
    items: page.items.filter((r) => r.approvers.length === 0 || r.approvers.includes(identity.account!)),
    more: page.nextCursor !== null,
  };
}

/** The rows of `view` for `identity`. */
export async function inboxRows(
  host: ChannelHost,
  identity: WebIdentity,
  view: InboxView,
  limit: number,
): Promise<InboxRows> {
  switch (view) {
    case 'waiting':
      return waitingRows(host, identity, limit);
    case 'decided': {
      if (identity.person === null) return { items: [], more: false };
      const page = await host.list({ respondedByPeople: [identity.person], limit });
      return { items: page.items, more: page.nextCursor !== null };
    }
    case 'filed':
      return filedFor(host, identity, limit);
    case 'all': {
      const page = await host.list({ status: 'pending', limit });
      return { items: page.items, more: page.nextCursor !== null };
    }
  }
}

/** Requests whose `user_id` is the viewer (any of their accounts, or their address), newest first. */
async function filedFor(host: ChannelHost, identity: WebIdentity, limit: number): Promise<InboxRows> {
  if (identity.person === null) return { items: [], more: false };
  const directory = host.directory?.();
  const mine = (r: ConfirmationRequest) =>
    r.userId !== null &&
    (r.userId === identity.account || (directory ? requesterPeople(directory, r).includes(identity.person!) : false));
  const items: ConfirmationRequest[] = [];
  let cursor: string | undefined;
  let scanned = 0;
  do {
    const page = await host.list({ limit: 200, cursor });
    scanned += page.items.length;
    for (const request of page.items) {
      if (!mine(request)) continue;
      if (items.length === limit) return { items, more: true };
      items.push(request);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor && scanned < FILED_SCAN);
  return { items, more: cursor !== undefined };
}
