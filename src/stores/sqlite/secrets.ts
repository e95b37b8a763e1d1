/**
 * @module stores/sqlite/secrets
 * {@link DeploymentSecrets} on SQLite (`deployment_secrets`): the embedded gateway's web sessions and email links
 * outlive a restart. `INSERT OR IGNORE` then read, so processes sharing the file agree on one value.
 */
import type Database from 'better-sqlite3';
import { newDeploymentSecret, type DeploymentSecrets, type SecretName } from '../../contracts/deployment-secrets.js';
import { withSqliteErrors } from './errors.js';

/** Deployment secrets kept in the SQLite file. */
export class SqliteSecrets implements DeploymentSecrets {
  constructor(private readonly sqlite: Database.Database) {}

  async get(name: SecretName): Promise<string> {
    return withSqliteErrors(() => {
      this.sqlite
        .prepare('INSERT OR IGNORE INTO deployment_secrets (name, value, created_at) VALUES (?, ?, ?)')
        .run(name, newDeploymentSecret(), new Date().toISOString());
      return this.sqlite.prepare('SELECT value FROM deployment_secrets WHERE name = ?').pluck().get(name) as string;
    });
  }

  async find(name: SecretName): Promise<string | null> {
    return withSqliteErrors(
      () =>
        (this.sqlite.prepare('SELECT value FROM deployment_secrets WHERE name = ?').pluck().get(name) as
          string | undefined) ?? null,
    );
  }

  async remove(name: SecretName): Promise<void> {
    withSqliteErrors(() => this.sqlite.prepare('DELETE FROM deployment_secrets WHERE name = ?').run(name));
  }
}
