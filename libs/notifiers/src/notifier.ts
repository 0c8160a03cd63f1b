/** What one alert says. Built by the caller (rendered templates included); senders only deliver it. */
export interface Notification {
  kind: 'down' | 'up' | 'reminder' | 'test';
  title: string;
  message: string;
  /** Dashboard link; may be empty when no base_url is configured. */
  url: string;
  /** When the alert was produced (ISO 8601). */
  timestamp: string;
  sensor: NotificationSensor | null;
  result: NotificationResult | null;
  incident: NotificationIncident | null;
}

export interface NotificationSensor {
  id: number;
  name: string;
  type: string;
  target: string;
  group: string;
  tags: string[];
}

export interface NotificationResult {
  ts: string;
  success: boolean;
  status_code: number | null;
  message: string;
  latency_ms: number | null;
}

export interface NotificationIncident {
  id: number;
  started_at: string;
  cause: string;
  resolved_at?: string | null;
}

export type ChannelConfig = Readonly<Record<string, unknown>>;

/** One field of a channel type, as GET /api/channel-types shows it; the editor form is built from it. */
export interface ChannelFieldDefinition {
  name: string;
  label: string;
  description: string;
  required: boolean;
  /** Masked on output, never in messages or logs. */
  secret: boolean;
  kind: 'string' | 'boolean' | 'enum';
  options?: string[];
}

/** A channel type's catalogue entry without its type token. */
export interface ChannelTypeDefinition {
  label: string;
  fields: ChannelFieldDefinition[];
  /** Numbered setup steps for a first-timer (the numbers are added by the UI). */
  recipe: string[];
}

/** The shape of one element of GET /api/channel-types. */
export interface ChannelTypeEntry extends ChannelTypeDefinition {
  type: string;
}

/** Why one delivery attempt failed. The message is safe to log and show: it never holds a secret. */
export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  /** HTTP status of the answer; null when nothing usable answered (network error, time-out, bad config). */
  readonly status: number | null;
  /** True for 429, 5xx, network errors and time-outs; false for other 4xx and configuration errors. */
  readonly retryable: boolean;

  constructor(message: string, options: { status: number | null; retryable: boolean }) {
    super(message);
    this.status = options.status;
    this.retryable = options.retryable;
  }
}

/**
 * One alert channel type. Implementations live one per file, are registered in the catalogue and
 * need no Nest and no database: tests run them against fakes of their services on 127.0.0.1.
 */
export interface Notifier {
  readonly type: string;
  readonly definition: ChannelTypeDefinition;
  /**
   * Strict check of a channel's config: null when valid, otherwise one sentence naming the field,
   * e.g. `config.room_id must start with ! and contain :`. Never quotes a secret.
   */
  validate(config: ChannelConfig): string | null;
  /**
   * One delivery attempt, bounded by `signal` (the caller sets the time-out). Never retries.
   * Resolves when the service accepted the message; otherwise throws a DeliveryError.
   */
  send(config: ChannelConfig, notification: Notification, signal: AbortSignal): Promise<void>;
}
