/**
 * @module channels/teams/conversations
 * Conversation references: what a proactive message needs (the conversation's serviceUrl and tenant), learned from
 * `conversationUpdate` / `installationUpdate` activities.
 *
 * @remarks Two kinds: in memory (one process, forgotten on restart) and in the database (`database-conversations.ts`,
 * table `teams_conversations`), which every replica shares. The channel uses memory unless given a store.
 */

/** Where a conversation lives. */
export interface TeamsConversationRef {
  conversationId: string;
  serviceUrl: string;
  tenantId?: string;
}

/** Keeps conversation references by conversation id. */
export interface TeamsConversationStore {
  /** Records (or refreshes) a reference. */
  save(ref: TeamsConversationRef): Promise<void>;
  /** The reference of `conversationId`, or null when no activity from it was seen. */
  get(conversationId: string): Promise<TeamsConversationRef | null>;
}

/** A store in process memory (single replica, forgets on restart). */
export class MemoryTeamsConversationStore implements TeamsConversationStore {
  private readonly refs = new Map<string, TeamsConversationRef>();

  async save(ref: TeamsConversationRef): Promise<void> {
    this.refs.set(ref.conversationId, { ...ref });
  }

  async get(conversationId: string): Promise<TeamsConversationRef | null> {
    const ref = this.refs.get(conversationId);
    return ref ? { ...ref } : null;
  }
}
