import type { PushToken } from '@monitor/contracts';

/** The body a POST push may carry (each field may come from the query string instead). */
export class PushBodyDto {
  /** `up` (default) or `down`. */
  status?: 'up' | 'down';
  /** At most 200 characters; stored as the result's message. */
  msg?: string;
  /** A finite number of at least 0. */
  latency_ms?: number;
}

export class PushTokenDto implements PushToken {
  /** The new token, shown this once; the old one stopped working. */
  token!: string;
  /** The push URL, when base_url is configured. */
  url?: string;
}
