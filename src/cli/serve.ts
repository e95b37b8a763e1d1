/**
 * @module cli/serve
 * `tollgate serve`: runs the gateway until SIGTERM/SIGINT, then shuts down gracefully.
 */
import { webLoginMessage } from '../../channels/web/index.js';
import { loadConfig } from '../config.js';
import { describeError } from '../api/errors.js';
import { redactUrl } from '../stores/database-url.js';
import { createServer } from '../server.js';
import { watchPolicy } from '../gateway/policy-reload.js';
import { numberFlag, flag, parseArgs } from './args.js';
import { configLine, findConfigFile } from './config-file.js';

/** Runs the gateway; resolves with the exit code once it has shut down. */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, { values: ['config', 'db', 'port', 'host'] });
  const configFile = findConfigFile(flag(args, 'config'));
  const config = loadConfig({
    port: numberFlag(args, 'port'),
    db: flag(args, 'db'),
    config: configFile.path ?? undefined,
    host: flag(args, 'host'),
  });
  // Signal handlers go in before anything is announced: a supervisor may send SIGTERM the moment it reads the
  // "listening" line, and a signal that finds no handler kills the process without a graceful shutdown.
  let signalled: (signal: string) => void = () => undefined;
  const stopRequested = new Promise<string>((resolve) => (signalled = resolve));
  process.once('SIGTERM', () => signalled('SIGTERM'));
  process.once('SIGINT', () => signalled('SIGINT'));

  const server = await createServer({ config });
  // The approval policy and the people directory reload on SIGHUP or a change of the file; a file that does not load keeps the old rules.
  const policy = server.gateway.policy;
  const stopWatching =
    config.configPath && policy
      ? watchPolicy({ gate: policy, people: server.people, path: config.configPath, logger: server.gateway.logger })
      : () => undefined;
  const { url } = await server.listen();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `tollgate listening on ${url} (database ${redactUrl(config.dbPath)}, scheduler ${server.gateway.describe().scheduler}, channels ${server.gateway.describe().channels.join(', ')})`,
  );
  out(configLine(configFile));
  // The gateway is up even when the link cannot be stored (the database away a moment): say so rather than exit.
  const login = await webLoginMessage(server.gateway.channels.get('web'), config.publicUrl ?? url).catch(
    (error: unknown) =>
      `Web inbox: no login link (${describeError(error)}); run npx tollgate login-link once the database answers`,
  );
  if (login) out(login);
  if (config.tokenGenerated) {
    out(`API token for this run (set TOLLGATE_API_TOKENS to choose your own): ${config.apiTokens[0]}`);
  }
  const signal = await stopRequested;
  out(`${signal} received: shutting down`);
  stopWatching();
  try {
    await server.close();
    return 0;
  } catch (error) {
    process.stderr.write(`shutdown failed: ${String(error)}\n`);
    return 1;
  }
}
