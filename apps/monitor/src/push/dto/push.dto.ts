/** The body a POST push may carry (each field may come from the query string instead). */
export class PushBodyDto {
  /** `up` (default) or `down`. */
  status?: 'up' | 'down';
  /** At most 200 characters; stored as the result's message. */
  msg?: string;
  /** A finite number of at least 0. */
  latency_ms?: number;
}
