import type { PushToken } from '@monitor/contracts';

/** Answer of POST /api/sensors/{id}/push-token. */
export class PushTokenDto implements PushToken {
  /** The new token, shown this once; the old one stopped working. */
  token!: string;
  /** The push URL, when base_url is configured. */
  url?: string;
}
