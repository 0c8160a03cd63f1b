import type { ClusterInstance, ClusterView } from '@monitor/contracts';

export class ClusterInstanceDto implements ClusterInstance {
  name!: string;
  version!: string;
  started_at!: string;
  last_seen_at!: string;
  /** False for an instance that stopped cleanly or missed its heartbeat for `dead_after`. */
  alive!: boolean;
  /** How it went away (null while alive): `dead` opens a cluster notice. */
  gone!: 'stopped' | 'dead' | null;
  /** The enabled sensors it probes now. */
  sensors!: number;
}

export class ClusterViewDto implements ClusterView {
  /** `single` on SQLite, `cluster` on PostgreSQL. */
  mode!: 'single' | 'cluster';
  /** The name of the instance that answered. */
  self!: string;
  dead_after_s!: number;
  instances!: ClusterInstanceDto[];
}
