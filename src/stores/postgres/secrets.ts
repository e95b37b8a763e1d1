/**
 * @module stores/postgres/secrets
 * {@link DeploymentSecrets} on PostgreSQL (`deployment_secrets`): `INSERT … ON CONFLICT DO NOTHING` then read, so of
 * replicas starting together exactly one value wins and all of them use it.
 */
import { newDeploymentSecret, type DeploymentSecrets, type SecretName } from '../../contracts/deployment-secrets.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';

/** Deployment secrets shared by every replica on one PostgreSQL database. */
export class PostgresSecrets implements DeploymentSecrets {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async get(name: SecretName): Promise<string> {
    return withPostgresErrors(async () => {
      await this.open.pool.query(
        'INSERT INTO deployment_secrets (name, value, created_at) VALUES ($1, $2, now()) ON CONFLICT (name) DO NOTHING',
        [name, newDeploymentSecret()],
      );
      const { rows } = await this.open.pool.query<{ value: string }>(
        'SELECT value FROM deployment_secrets WHERE name = $1',
        [name],
      );
      return rows[0]!.value;
    });
  }

  async find(name: SecretName): Promise<string | null> {
    return withPostgresErrors(async () => {
      const { rows } = await this.open.pool.query<{ value: string }>(
        'SELECT value FROM deployment_secrets WHERE name = $1',
        [name],
      );
      return rows[0]?.value ?? null;
    });
  }

  async remove(name: SecretName): Promise<void> {
    await withPostgresErrors(() => this.open.pool.query('DELETE FROM deployment_secrets WHERE name = $1', [name]));
  }
}
