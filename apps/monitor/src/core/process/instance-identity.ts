import { randomBytes } from 'node:crypto';
import { buildInfo } from '../build-info';
import type { MonitorConfig } from '../config/monitor-config';

export const INSTANCE_IDENTITY = Symbol('INSTANCE_IDENTITY');

/** Who this process is among the instances sharing one database. */
export interface InstanceIdentity {
  /** `instance_name`, unique among live instances. */
  name: string;
  /** Random per process start: tells this run from an earlier one of the same name. */
  token: string;
  version: string;
  /** True on PostgreSQL, where several instances may share the database; SQLite is single. */
  clustered: boolean;
  deadAfterMs: number;
  /** What a stored result names as its prober: the instance name, or '' in single-instance mode. */
  resultInstance: string;
}

export function instanceIdentity(config: MonitorConfig): InstanceIdentity {
  const clustered = config.database_url !== null;
  return {
    name: config.instance_name,
    token: randomBytes(12).toString('base64url'),
    version: buildInfo().version,
    clustered,
    deadAfterMs: config.cluster.dead_after_seconds * 1000,
    resultInstance: clustered ? config.instance_name : '',
  };
}
