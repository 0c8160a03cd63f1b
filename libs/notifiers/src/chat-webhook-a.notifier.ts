import { checkHttpUrl, checkKnownFields, checkString, firstProblem, stringField } from './config';
import { deliverHttp, jsonReason } from './http';
import {
  DeliveryError,
  type ChannelConfig,
  type ChannelTypeDefinition,
  type Notification,
  type Notifier,
} from './notifier';
import { plainText, truncate } from './text';

/** The service's limits for a message and for a display name. */
const MAX_CONTENT = 2000;
const MAX_USERNAME = 80;
const FIELDS = ['webhook_url', 'username'];

/** Discord-style webhook: POST webhook_url with {content, username?}. */
export class ChatWebhookANotifier implements Notifier {
  readonly type = 'chat_webhook_a';
  readonly definition: ChannelTypeDefinition = {
    label: 'Chat webhook A (Discord)',
    fields: [
      {
        name: 'webhook_url',
        label: 'Webhook URL',
        description: 'The channel webhook address, https://discord.com/api/webhooks/<id>/<token>',
        required: true,
        secret: true,
        kind: 'string',
      },
      {
        name: 'username',
        label: 'Sender name',
        description: 'Overrides the name the webhook posts under; empty keeps the webhook’s own name',
        required: false,
        secret: false,
        kind: 'string',
      },
    ],
    recipe: [
      'In the chat app, open the server, hover the channel that should receive alerts and click the gear (Edit Channel).',
      'Open Integrations, then Webhooks, and click New Webhook (you need the Manage Webhooks permission).',
      'Optionally rename the webhook and pick an avatar, then click Copy Webhook URL.',
      'Paste the address into Webhook URL; treat it like a password, anyone who has it can post.',
      'Save and press Test: the message should appear in the channel.',
    ],
  };

  validate(config: ChannelConfig): string | null {
    return firstProblem(
      checkKnownFields(config, FIELDS),
      checkHttpUrl(config, 'webhook_url', true),
      checkString(config, 'username', false),
    );
  }

  async send(config: ChannelConfig, notification: Notification, signal: AbortSignal): Promise<void> {
    const problem = this.validate(config);
    if (problem) throw new DeliveryError(problem, { status: null, retryable: false });
    const webhookUrl = stringField(config, 'webhook_url') ?? '';
    const username = stringField(config, 'username');
    const payload: Record<string, unknown> = { content: plainText(notification, MAX_CONTENT) };
    if (username !== undefined) payload['username'] = truncate(username, MAX_USERNAME);
    await deliverHttp({
      service: 'the chat webhook',
      method: 'POST',
      url: webhookUrl,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal,
      secrets: [{ value: webhookUrl, mask: '<webhook_url>' }],
      reason: jsonReason('message'),
    });
  }
}
