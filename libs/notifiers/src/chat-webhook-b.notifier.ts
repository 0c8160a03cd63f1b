import { checkHttpUrl, checkKnownFields, checkString, firstProblem, stringField } from './config';
import { deliverHttp } from './http';
import {
  DeliveryError,
  type ChannelConfig,
  type ChannelTypeDefinition,
  type Notification,
  type Notifier,
} from './notifier';
import { plainText } from './text';

/** Far below the service's own limit; long messages are cut rather than refused. */
const MAX_TEXT = 4000;
const FIELDS = ['webhook_url', 'channel'];

/** Slack-style incoming webhook: POST webhook_url with {text, channel?}. */
export class ChatWebhookBNotifier implements Notifier {
  readonly type = 'chat_webhook_b';
  readonly definition: ChannelTypeDefinition = {
    label: 'Chat webhook B (Slack incoming webhook)',
    fields: [
      {
        name: 'webhook_url',
        label: 'Webhook URL',
        description: 'The incoming webhook address, https://hooks.slack.com/services/T…/B…/…',
        required: true,
        secret: true,
        kind: 'string',
      },
      {
        name: 'channel',
        label: 'Channel override',
        description:
          'Post to this channel instead of the webhook’s own (a leading # is added); empty keeps the default',
        required: false,
        secret: false,
        kind: 'string',
      },
    ],
    recipe: [
      'Open https://api.slack.com/apps while signed in to your workspace and click Create New App, then From scratch.',
      'Name the app (e.g. "Uptime monitor"), pick the workspace and click Create App.',
      'In the app’s settings open Incoming Webhooks and switch Activate Incoming Webhooks on.',
      'Click Add New Webhook to Workspace, choose the channel for alerts and click Allow.',
      'Copy the new Webhook URL (https://hooks.slack.com/services/…) into Webhook URL; treat it like a password.',
      'Save and press Test: the message should appear in the channel.',
    ],
  };

  validate(config: ChannelConfig): string | null {
    return firstProblem(
      checkKnownFields(config, FIELDS),
      checkHttpUrl(config, 'webhook_url', true),
      checkString(config, 'channel', false),
      /\s/.test(stringField(config, 'channel') ?? '') ? 'config.channel must not contain spaces' : null,
    );
  }

  async send(config: ChannelConfig, notification: Notification, signal: AbortSignal): Promise<void> {
    const problem = this.validate(config);
    if (problem) throw new DeliveryError(problem, { status: null, retryable: false });
    const webhookUrl = stringField(config, 'webhook_url') ?? '';
    const channel = stringField(config, 'channel');
    const payload: Record<string, unknown> = { text: plainText(notification, MAX_TEXT) };
    if (channel !== undefined) payload['channel'] = channel.startsWith('#') ? channel : `#${channel}`;
    await deliverHttp({
      service: 'the chat webhook',
      method: 'POST',
      url: webhookUrl,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal,
      secrets: [{ value: webhookUrl, mask: '<webhook_url>' }],
    });
  }
}
