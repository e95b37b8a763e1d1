/**
 * @module channels/slack/slack-logger
 * Lets Bolt and the Web API client log through tollgate's pino logger (one format, one level, redaction), instead
 * of their own console logger.
 */
import { LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from 'pino';

/** Wraps `logger` in the `@slack/logger` interface. Slack's `info` chatter goes to pino's `debug`. */
export function slackLogger(logger: Logger): SlackLogger {
  let level = LogLevel.WARN;
  const line = (parts: unknown[]) =>
    parts.map((p) => (p instanceof Error ? p.message : typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
  return {
    debug: (...parts: unknown[]) => logger.debug(line(parts)),
    info: (...parts: unknown[]) => logger.debug(line(parts)),
    warn: (...parts: unknown[]) => logger.warn(line(parts)),
    error: (...parts: unknown[]) => logger.error(line(parts)),
    setLevel: (next: LogLevel) => {
      // pino's level decides what is written; remember Slack's wish only so getLevel answers truthfully.
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
