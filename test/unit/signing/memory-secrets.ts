/**
 * Deployment secrets in memory, counting reads: what a database would hold, for the signing-key tests.
 */
import {
  newDeploymentSecret,
  type DeploymentSecrets,
  type SecretName,
} from '../../../src/contracts/deployment-secrets.js';

/** {@link DeploymentSecrets} in a map; `reads` counts the calls that would reach the database. */
export class MemorySecrets implements DeploymentSecrets {
  readonly values = new Map<SecretName, string>();
  reads = 0;
  async get(name: SecretName): Promise<string> {
    this.reads++;
    if (!this.values.has(name)) this.values.set(name, newDeploymentSecret());
    return this.values.get(name)!;
  }
  async find(name: SecretName): Promise<string | null> {
    this.reads++;
    return this.values.get(name) ?? null;
  }
  async remove(name: SecretName): Promise<void> {
    this.values.delete(name);
  }
}
