/**
 * @module channels/web
 * The built-in web channel: always on, needs no credentials. Its "card" is the request's entry in the web inbox,
 * read straight from the database, so sending and updating have nothing to call; decisions arrive through
 * `POST /v1/requests/:id/decision` and the inbox pages.
 */
import type { Channel } from '../../src/channel.js';

/** Creates the web channel. */
export function createWebChannel(): Channel {
  return {
    name: 'web',
    defaultTarget: '',
    async send() {
      return null;
    },
    async update() {},
  };
}
