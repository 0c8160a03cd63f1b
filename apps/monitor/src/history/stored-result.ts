/** One probe result as the history stores it (its own file: the writer and the repositories share it). */
export interface StoredResult {
  sensorId: number;
  ts: number;
  success: boolean;
  statusCode: number | null;
  latencyMs: number | null;
  message: string;
}
