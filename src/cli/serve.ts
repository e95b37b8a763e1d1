/**
 * @module cli/serve
 * `tollgate serve`: runs the gateway until SIGTERM/SIGINT, then shuts down gracefully.
 */
import { loadConfig } from '../config.js';
import { webLoginMessage } from '../../channels/web/index.js';
import { createServer } from '../server.js';
import { numberFlag, flag, parseArgs } from './args.js';

/** Runs the gateway; resolves with the exit code once it has shut down. */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const config = loadConfig({ port: numberFlag(args, 'port'), db: flag(args, 'db'), config: flag(args, 'config'), host: flag(args, 'host') });
  const server = await createServer({ config });
  const { url } = await server.listen();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`tollgate listening on ${url} (database ${config.dbPath}, scheduler ${server.gateway.scheduler.name}, channels ${[...server.gateway.channels.keys()].join(', ')})`);
  const login = webLoginMessage(server.gateway.channels.get('web'), config.publicUrl ?? url);
  if (login) out(login);
  if (config.tokenGenerated) {
    out(`API token for this run (set TOLLGATE_API_TOKENS to choose your own): ${config.apiTokens[0]}`);
  }
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      out(`${signal} received: shutting down`);
      server.close().then(
        () => resolve(0),
        (error: unknown) => {
          process.stderr.write(`shutdown failed: ${String(error)}\n`);
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}
