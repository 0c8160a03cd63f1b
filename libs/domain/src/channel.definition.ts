import { booleanRule, choiceRule, objectRule, textRule } from './field-rules';
import type { FieldRule } from './field-rules';

/**
 * What an alert channel is, once for the API's DTO, the configuration file and the backup reader.
 * The type ids are the notifier catalogue's keys: libs/notifiers builds its catalogue from a
 * record keyed by ChannelType, so a sender without an id here, or an id without a sender, does not compile.
 */
export const CHANNEL_TYPES = [
  'bot_messenger',
  'chat_webhook_a',
  'federated_chat',
  'push_topic',
  'chat_webhook_b',
  'webhook',
  'email',
] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const CHANNEL_NAME = textRule(200, true);
export const CHANNEL_TITLE_TEMPLATE = textRule(4000);
export const CHANNEL_BODY_TEMPLATE = textRule(16_000);

export const CHANNEL_FIELDS = {
  name: CHANNEL_NAME,
  type: choiceRule(CHANNEL_TYPES),
  config: objectRule,
  enabled: booleanRule,
  title_template: CHANNEL_TITLE_TEMPLATE,
  body_template: CHANNEL_BODY_TEMPLATE,
} as const satisfies Record<string, FieldRule>;

export type ChannelField = keyof typeof CHANNEL_FIELDS;

export const CHANNEL_DEFAULTS = {
  config: {} as Readonly<Record<string, unknown>>,
  enabled: true,
  title_template: '',
  body_template: '',
} as const;

/** The problem with a present value of a channel field, as the API answers it, or null. */
export function channelFieldError(field: ChannelField, value: unknown): string | null {
  const problem = CHANNEL_FIELDS[field].check(value);
  return problem === null ? null : `${field} ${problem}`;
}
