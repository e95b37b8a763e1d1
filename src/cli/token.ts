/**
 * @module cli/token
 * `tollgate token create|list|revoke`: manages scoped API tokens over the API (needs an admin token in
 * `TOLLGATE_TOKEN`). `create` prints the secret once; the gateway keeps only its hash.
 */
import { GateClient } from '../client/gate-client.js';
import { terminalText } from '../utils/terminal-text.js';
import { isReservedTokenName, RESERVED_NAME_MESSAGE } from '../tokens/scopes.js';
import { flag, numberFlag, parseArgs, UsageError } from './args.js';

/** Streams and environment of the command (replaceable in tests). */
export interface TokenIo {
  stdout: { write(s: string): unknown };
  env: Record<string, string | undefined>;
}

/** Runs `tollgate token …`; resolves with the exit code. */
export async function run(argv: string[], io: TokenIo = { stdout: process.stdout, env: process.env }): Promise<number> {
  const args = parseArgs(argv, { values: ['scope', 'as', 'person', 'expires-in'], booleans: ['json'] });
  const [action, ...rest] = args.positionals;
  const client = new GateClient({ env: io.env });
  const json = flag(args, 'json') === 'true';
  switch (action) {
    case 'create': {
      const name = rest[0];
      const scopes = args.flags.scope ?? [];
      if (!name) throw new UsageError('name the token: tollgate token create NAME --scope request:create …');
      if (isReservedTokenName(name)) throw new UsageError(`token name ${RESERVED_NAME_MESSAGE}`);
      if (scopes.length === 0)
        throw new UsageError(
          'give at least one --scope (request:create, request:read, request:cancel, request:decide, audit:read, admin)',
        );
      const created = await client.createToken({
        name,
        scopes,
        as: flag(args, 'as'),
        person: flag(args, 'person'),
        expires_in_s: numberFlag(args, 'expires-in'),
      });
      io.stdout.write(json ? `${JSON.stringify(created)}\n` : `${created.secret}\n`);
      return 0;
    }
    case 'list': {
      const tokens = await client.listTokens();
      if (json) io.stdout.write(`${JSON.stringify(tokens)}\n`);
      else
        for (const t of tokens)
          io.stdout.write(
            `${terminalText(`${t.id}  ${t.name}  ${t.scopes.join(',')}${t.as ? ` as ${t.as}` : ''}${t.person ? ` person ${t.person}` : ''}`, { oneLine: true })}${t.revoked_at ? '  (revoked)' : ''}\n`,
          );
      return 0;
    }
    case 'revoke': {
      if (!rest[0]) throw new UsageError('give the token id: tollgate token revoke ID');
      await client.revokeToken(rest[0]);
      io.stdout.write(`revoked ${rest[0]}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown action "${action ?? ''}": create, list or revoke`);
  }
}
