/** The value a secret config field reads as; sending it back keeps the stored secret. */
export const STORED_SECRET = '__stored__';

export interface AlertChannel {
  readonly id: number;
  readonly name: string;
  readonly type: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly enabled: boolean;
  readonly title_template: string;
  readonly body_template: string;
  readonly last_error: string;
  readonly last_error_at: string | null;
  readonly managed_by: string | null;
}

export interface ChannelField {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly required: boolean;
  readonly secret: boolean;
  readonly kind: 'string' | 'boolean' | 'enum';
  readonly options?: readonly string[];
}

export interface ChannelType {
  readonly type: string;
  readonly label: string;
  readonly fields: readonly ChannelField[];
  readonly recipe: readonly string[];
}

export interface ChannelInput {
  name: string;
  type: string;
  config: Record<string, string | boolean>;
  enabled: boolean;
  title_template: string;
  body_template: string;
}
