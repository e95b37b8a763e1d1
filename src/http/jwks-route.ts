/**
 * @module http/jwks-route
 * `GET /.well-known/jwks.json`: the public keys verdict tokens and audit anchors are signed with (current first, then
 * retired ones), public and unauthenticated because a tool verifying a verdict holds no tollgate token. Cacheable for
 * five minutes: a tool fetching it per call would otherwise hammer the gateway, and keys change only by rotation.
 */
import type { HttpPlugin } from './app.js';
import type { SigningKeys } from '../signing/keys.js';

/** The plugin serving the JWKS of `keys`. */
export function jwksPlugin(keys: SigningKeys): HttpPlugin {
  return {
    name: 'jwks',
    mount(app) {
      app.get('/.well-known/jwks.json', async (_req, res) => {
        res
          .set('cache-control', 'public, max-age=300')
          .type('application/jwk-set+json')
          .json(await keys.jwks());
      });
    },
  };
}
