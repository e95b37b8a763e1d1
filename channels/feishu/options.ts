/**
 * @module channels/feishu/options
 * The Feishu/Lark channel's settings: credentials from the environment (never from the YAML file), everything else
 * from the environment or the `feishu:` section of `tollgate.yaml`. Errors name the variable or the file key.
 */
import { z } from 'zod';
import { ValidationError } from '../../src/api/errors.js';
import { fieldProblems, validationError } from '../../src/api/validation.js';
import type { SharedMarks } from '../../src/contracts/shared-marks.js';

/** The language of card texts and toasts. */
export type FeishuLanguage = 'en' | 'zh';

/** How taps reach tollgate: signed HTTP callbacks (`webhook`) or the SDK's long connection (`ws`). */
export type FeishuMode = 'webhook' | 'ws';

/** Everything the Feishu channel is built from. */
export interface FeishuOptions {
  appId: string;
  appSecret: string;
  /** Base URL of the Open API: `https://open.feishu.cn`, `https://open.larksuite.com`, or a test server. */
  domain: string;
  /** `FEISHU_VERIFICATION_TOKEN`; required in webhook mode. */
  verificationToken: string | null;
  /** `FEISHU_ENCRYPT_KEY`; required in webhook mode (Feishu signs callbacks only when it is set). */
  encryptKey: string | null;
  mode: FeishuMode;
  /** The target of requests that say `{"type":"feishu"}` without one (a chat id `oc_…`, usually). */
  defaultTarget?: string;
  language: FeishuLanguage;
  /** Callbacks whose signed timestamp is further than this from now are refused (seconds, default 300). */
  replayWindowS: number;
  /** Timeout of each Open API call in milliseconds (default 10 000): a hung call must not hold a job forever. */
  requestTimeoutMs: number;
  /** The gateway's public URL (`TOLLGATE_PUBLIC_URL`): cards name each request's page (full diff, raw arguments). */
  publicUrl?: string | null;
  /** Characters of tool arguments shown on a card (default 1500). */
  maxArgsChars?: number;
  /** Callback nonces shared by every replica (the database on PostgreSQL), so a replay to another replica fails too. */
  marks?: SharedMarks;
}

/** Base URLs of the two public clouds. */
export const FEISHU_DOMAINS = { feishu: 'https://open.feishu.cn', lark: 'https://open.larksuite.com' } as const;

const fileSectionSchema = z.strictObject({
  mode: z.enum(['webhook', 'ws']).optional(),
  domain: z.string().min(1).optional(),
  default_target: z.string().min(1).max(200).optional(),
  language: z.string().min(1).optional(),
  replay_window_s: z.int().min(10).max(3600).optional(),
  request_timeout_ms: z.int().min(100).max(120_000).optional(),
  max_args_chars: z.int().min(100).max(20_000).optional(),
});

/** The `feishu:` section of `tollgate.yaml`. */
export type FeishuFileSection = z.infer<typeof fileSectionSchema>;

/**
 * Reads the channel's settings. Returns null when neither `FEISHU_APP_ID` nor `FEISHU_APP_SECRET` is set (the
 * channel is off); throws {@link ValidationError} naming the variable when the settings are incomplete or wrong.
 * @example
 * const options = feishuOptionsFromEnv(process.env, { language: 'zh', default_target: 'oc_123' });
 */
export function feishuOptionsFromEnv(
  env: Record<string, string | undefined>,
  fileSection?: Record<string, unknown>,
): FeishuOptions | null {
  const appId = env.FEISHU_APP_ID?.trim() || '';
  const appSecret = env.FEISHU_APP_SECRET?.trim() || '';
  if (!appId && !appSecret) return null;
  if (!appId) throw new ValidationError('FEISHU_APP_ID: required when FEISHU_APP_SECRET is set');
  if (!appSecret) throw new ValidationError('FEISHU_APP_SECRET: required when FEISHU_APP_ID is set');

  const parsed = fileSectionSchema.safeParse(fileSection ?? {});
  if (!parsed.success) {
    throw validationError(fieldProblems(parsed.error.issues, 'feishu'));
  }
  const file = parsed.data;

  const modeText = env.FEISHU_MODE?.trim() || file.mode || 'webhook';
  const mode = parseMode(modeText);
  const verificationToken = env.FEISHU_VERIFICATION_TOKEN?.trim() || null;
  const encryptKey = env.FEISHU_ENCRYPT_KEY?.trim() || null;
  if (mode === 'webhook') {
    // Without the encrypt key Feishu does not sign callbacks, and a bare token is a static password: refuse.
    if (!encryptKey)
      throw new ValidationError(
        'FEISHU_ENCRYPT_KEY: required for card callbacks over HTTP (set it in the app\'s "Events & Callbacks > Encryption strategy"), or set FEISHU_MODE=ws',
      );
    if (!verificationToken)
      throw new ValidationError(
        'FEISHU_VERIFICATION_TOKEN: required for card callbacks over HTTP, or set FEISHU_MODE=ws',
      );
  }
  const defaultTarget = env.FEISHU_DEFAULT_TARGET?.trim() || file.default_target;
  return {
    appId,
    appSecret,
    domain: parseDomain(env.FEISHU_DOMAIN?.trim() || file.domain || 'feishu'),
    verificationToken,
    encryptKey,
    mode,
    ...(defaultTarget ? { defaultTarget } : {}),
    language: parseLanguage(env.FEISHU_LANGUAGE?.trim() || file.language || 'en'),
    replayWindowS: file.replay_window_s ?? 300,
    requestTimeoutMs: file.request_timeout_ms ?? 10_000,
    ...(file.max_args_chars ? { maxArgsChars: file.max_args_chars } : {}),
  };
}

/** `feishu` (default), `lark`, or a base URL such as `http://127.0.0.1:9000`. */
export function parseDomain(value: string): string {
  const lower = value.toLowerCase();
  if (lower === 'feishu') return FEISHU_DOMAINS.feishu;
  if (lower === 'lark' || lower === 'larksuite') return FEISHU_DOMAINS.lark;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(`FEISHU_DOMAIN: expected "feishu", "lark" or a base URL, got "${value}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ValidationError(`FEISHU_DOMAIN: expected an http(s) URL, got "${value}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function parseMode(value: string): FeishuMode {
  const lower = value.toLowerCase();
  if (lower === 'webhook' || lower === 'http') return 'webhook';
  if (lower === 'ws' || lower === 'websocket' || lower === 'long-connection') return 'ws';
  throw new ValidationError(`FEISHU_MODE: expected "webhook" or "ws", got "${value}"`);
}

function parseLanguage(value: string): FeishuLanguage {
  const lower = value.toLowerCase().replace('_', '-');
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  if (lower === 'zh' || lower.startsWith('zh-') || lower === 'cn') return 'zh';
  throw new ValidationError(`FEISHU_LANGUAGE: expected "en" or "zh", got "${value}"`);
}
