import { BotMessengerNotifier } from './bot-messenger.notifier';
import { ChatWebhookANotifier } from './chat-webhook-a.notifier';
import { ChatWebhookBNotifier } from './chat-webhook-b.notifier';
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

/** Every sender of this build, one per channel type. */
export function createNotifierCatalogue(): NotifierCatalogue {
  return new NotifierCatalogue([
    new BotMessengerNotifier(),
    new ChatWebhookANotifier(),
    new FederatedChatNotifier(),
    new PushTopicNotifier(),
    new ChatWebhookBNotifier(),
    new WebhookNotifier(),
  ]);
}
