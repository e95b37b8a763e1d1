/**
 * The web channel against the shared channel contract: its "card" is the request page, a tap is the decision form
 * posted with the session cookie and CSRF token, and a forged tap is a cross-site post without the token (403).
 */
import { createWebChannel } from '../../channels/web/index.js';
import type { TestServer } from '../helpers/server.js';
import { WebClient, visibleText } from '../integration/web/web-client.js';
import { runChannelContract, type ChannelHarness } from './channel.contract.js';

const USERS = ['approver1', 'intern', 'boss'];
const tokenOf = (name: string) => `token-of-${name}-0123456789`;

runChannelContract('web', async (): Promise<ChannelHarness> => {
  const channel = createWebChannel({ users: USERS.map((name) => ({ name, token: tokenOf(name) })) });
  let server: TestServer | undefined;
  const clients = new Map<string, WebClient>();
  const clientFor = async (user: string) => {
    let client = clients.get(user);
    if (!client) {
      client = new WebClient(server!.url);
      const signedIn = await client.signIn(user, tokenOf(user));
      if (signedIn.path !== '/ui') throw new Error(`${user} could not sign in: ${signedIn.status} ${signedIn.path}`);
      clients.set(user, client);
    }
    return client;
  };
  return {
    channel,
    target: '',
    forgedStatus: 403,
    async attach(s) {
      server = s;
    },
    // The web channel keeps no message reference: its card is the page of the newest request (one per test).
    async card() {
      const [latest] = (await server!.store.list({ limit: 1 })).items;
      if (!latest) return null;
      const page = await (await clientFor('approver1')).request(`/ui/requests/${latest.id}`);
      if (page.status !== 200) return null;
      return { text: visibleText(page.text), actionable: page.text.includes('id="decision-form"') };
    },
    async tap(s, request, decision, userId, options = {}) {
      const client = await clientFor(userId);
      // The request as the test holds it stands for the page the approver loaded; a decided page has no form left.
      const fields: Record<string, string> = {
        decision,
        nonce: options.nonce ?? request.nonce,
        args_sha256: request.argsSha256,
      };
      if (options.reason) fields.reason = options.reason;
      return (await client.decide(request.id, fields)).status;
    },
    async forgedTap(s, request, decision, userId) {
      const victim = await clientFor(userId);
      const page = await victim.request(`/ui/requests/${request.id}`);
      const nonce = /name="nonce" value="([^"]*)"/.exec(page.text)?.[1] ?? '';
      // A page on another site posting the form with the victim's cookie (worst case: the browser sent it) and no token.
      const res = await victim.request(`/ui/requests/${request.id}/decision`, {
        form: { decision, nonce },
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        manual: true,
      });
      return res.status;
    },
    async close() {
      clients.clear();
    },
  };
});
