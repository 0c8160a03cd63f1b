import { CHANNEL_TYPES, type ChannelType } from '@monitor/domain';
import { BotMessengerNotifier } from './bot-messenger.notifier';
import { ChatWebhookANotifier } from './chat-webhook-a.notifier';
import { ChatWebhookBNotifier } from './chat-webhook-b.notifier';
import { EmailNotifier } from './email.notifier';
import { FederatedChatNotifier } from './federated-chat.notifier';
import type { ChannelTypeEntry, Notifier } from './notifier';
import { PushTopicNotifier } from './push-topic.notifier';
import { WebhookNotifier } from './webhook.notifier';

/** The registered senders, one per channel type. */
export class NotifierCatalogue {
  private readonly notifiers = new Map<string, Notifier>();

  constructor(notifiers: Notifier[] = []) {
    for (const notifier of notifiers) this.register(notifier);
  }

  register(notifier: Notifier): void {
    this.notifiers.set(notifier.type, notifier);
  }

  get(type: string): Notifier | undefined {
    return this.notifiers.get(type);
  }

  types(): string[] {
    return [...this.notifiers.keys()];
  }

  /** The body of GET /api/channel-types, in registration order. */
  definitions(): ChannelTypeEntry[] {
    return [...this.notifiers.values()].map((notifier) => ({
      type: notifier.type,
      label: notifier.definition.label,
      fields: notifier.definition.fields.map((field) => ({
        ...field,
        ...(field.options ? { options: [...field.options] } : {}),
      })),
      recipe: [...notifier.definition.recipe],
    }));
  }
}

/**
 * One sender per channel type of the channel definition (libs/domain): a type without a sender,
 * or a sender for a type the definition does not list, does not compile.
 */
const SENDERS: { readonly [T in ChannelType]: () => Notifier & { readonly type: T } } = {
  bot_messenger: () => new BotMessengerNotifier(),
  chat_webhook_a: () => new ChatWebhookANotifier(),
  federated_chat: () => new FederatedChatNotifier(),
  push_topic: () => new PushTopicNotifier(),
  chat_webhook_b: () => new ChatWebhookBNotifier(),
  webhook: () => new WebhookNotifier(),
  email: () => new EmailNotifier(),
};

/** Every sender of this build, one per channel type, in the definition's order. */
export function createNotifierCatalogue(): NotifierCatalogue {
  return new NotifierCatalogue(CHANNEL_TYPES.map((type) => SENDERS[type]()));
}
