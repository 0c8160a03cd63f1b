/** One instance of `GET /api/cluster`. */
export interface ClusterInstance {
  name: string;
  version: string;
  started_at: string;
  last_seen_at: string;
  /** False for an instance that stopped cleanly or missed its heartbeat for `dead_after`. */
  alive: boolean;
  /** How the instance went away: null while alive. A `dead` one opens a cluster notice. */
  gone: 'stopped' | 'dead' | null;
  /** The enabled sensors it probes now. */
  sensors: number;
}

/** `GET /api/cluster`: the instances sharing the database (one, on SQLite). */
export interface ClusterView {
  mode: 'single' | 'cluster';
  /** This instance's name. */
  self: string;
  dead_after_s: number;
  instances: ClusterInstance[];
}
