import type { MetricsTokenResponse, MetricsTokenStatus } from '@monitor/contracts';

export class MetricsTokenDto implements MetricsTokenResponse {
  /** The new token, shown this once: only its hash is kept. Send it as `Authorization: Bearer`. */
  metrics_token!: string;
  /** When it was made (ISO 8601). */
  created_at!: string;
}

/** Whether a metrics token is set; the token itself is never shown again. */
export class MetricsTokenStatusDto implements MetricsTokenStatus {
  set!: boolean;
  /** When the current token was made (ISO 8601); null when none is set. */
  created_at!: string | null;
}
