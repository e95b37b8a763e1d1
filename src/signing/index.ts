/**
 * @module signing
 * Signed verdicts: the Ed25519 key (`keys`), the verdict token and anchor signatures (`verdict`). The store wrapper
 * that signs final rows as the gateway reads them is `stores/verdict-tokens`. Checking a token is `tollgate/verify`.
 */
export {
  SigningKeyError,
  KEY_IN_DATABASE_WARNING,
  describeKeyPlace,
  openSigningKeys,
  readSigningSettings,
  signingKeys,
  keyFromSetting,
  keyFromSeed,
  retiredKeys,
  publishedJwk,
  type KeyHome,
  type KeyPlace,
  type KeyStores,
  type SigningKey,
  type SigningKeys,
  type SigningSettings,
  type SigningSettingsOptions,
} from './keys.js';
export { keyFilePath, retiredFilePath } from './key-file.js';
export {
  VerdictSigner,
  verdictClaims,
  hasVerdict,
  verdictTtlFromEnv,
  DEFAULT_VERDICT_TTL_S,
  VERDICT_TYPE,
  ANCHOR_TYPE,
  type VerdictClaims,
  type VerdictSignerOptions,
} from './verdict.js';
