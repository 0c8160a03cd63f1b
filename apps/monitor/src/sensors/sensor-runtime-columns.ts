/** The runtime columns of a sensor row, written with its results. */
export interface SensorRuntimeColumns {
  status: string;
  message: string;
  lastCheckedAt: number;
  latencyMs: number | null;
  streak: number;
  statusChangedAt: number | null;
  lastAlertAt: number | null;
}
