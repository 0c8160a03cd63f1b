import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sqlClientFor, type SqlClient } from '../core/database/sql-client';

/**
 * Second-factor challenges a code was tried against (table `spent_challenges`), kept until they
 * expire. The database decides, so of any number of tries on any instance sharing it, one is first.
 */
@Injectable()
export class SpentChallengesRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get sql(): SqlClient {
    return sqlClientFor(this.dataSource);
  }

  /** Marks the challenge spent; false when it already was. Rows of expired challenges go first. */
  async spend(challenge: string, expiresAt: number, now: number): Promise<boolean> {
    await this.sql.run('DELETE FROM spent_challenges WHERE expires_at <= ?', [now]);
    const key = createHash('sha256').update(challenge).digest('base64url');
    const spent = await this.sql.run(
      'INSERT INTO spent_challenges (challenge, expires_at) VALUES (?, ?) ON CONFLICT (challenge) DO NOTHING',
      [key, expiresAt],
    );
    return spent.changes === 1;
  }
}
