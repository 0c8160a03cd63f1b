import { InitialSchema1763750000000 } from './1763750000000-initial-schema';
import { OnlyOnceRules1764000000001 } from './1764000000001-only-once-rules';
import { AlertOutbox1764000000002 } from './1764000000002-alert-outbox';
import { ApiFilterIndexes1764000000003 } from './1764000000003-api-filter-indexes';
import { Cluster1764000000004 } from './1764000000004-cluster';
import { StatusPages1764000000005 } from './1764000000005-status-pages';
import { HttpTargetCredentials1764250000000 } from './1764250000000-http-target-credentials';
import { SpentChallenges1764260000000 } from './1764260000000-spent-challenges';

/** Every migration, oldest first. The doctor compares the database against this list. */
export const MIGRATIONS = [
  InitialSchema1763750000000,
  OnlyOnceRules1764000000001,
  AlertOutbox1764000000002,
  ApiFilterIndexes1764000000003,
  Cluster1764000000004,
  StatusPages1764000000005,
  HttpTargetCredentials1764250000000,
  SpentChallenges1764260000000,
];

export const MIGRATION_NAMES: readonly string[] = MIGRATIONS.map((migration) => migration.name);
