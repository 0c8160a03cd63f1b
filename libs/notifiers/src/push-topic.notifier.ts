import {
  checkEnum,
  checkHttpUrl,
  checkKnownFields,
  checkString,
  firstProblem,
  isUnset,
  joinUrl,
  stringField,
} from './config';
import { deliverHttp, jsonReason } from './http';
import {
  DeliveryError,
  type ChannelConfig,
  type ChannelTypeDefinition,
  type Notification,
  type Notifier,
} from './notifier';
import { headerText, truncate } from './text';

export const PUSH_DEFAULT_SERVER = 'https://ntfy.sh';
export const PUSH_PRIORITIES = ['min', 'low', 'default', 'high', 'urgent'] as const;
/** The server's own limit for a message body before it turns it into an attachment. */
const MAX_MESSAGE = 4000;
const FIELDS = ['topic', 'server_url', 'token', 'priority'];

/** ntfy-style push: POST {server_url}/{topic} with the message as the body. */
export class PushTopicNotifier implements Notifier {
  readonly type = 'push_topic';
  readonly definition: ChannelTypeDefinition = {
    label: 'Push topic (ntfy)',
    fields: [
      {
        name: 'topic',
        label: 'Topic',
        description:
          'Topic name (letters, digits, - and _); on the public server anyone who knows it can read it, so make it hard to guess',
        required: true,
        secret: false,
        kind: 'string',
      },
      {
        name: 'server_url',
        label: 'Server URL',
        description: `Base address of a self-hosted server; empty means ${PUSH_DEFAULT_SERVER}`,
        required: false,
        secret: false,
        kind: 'string',
      },
      {
        name: 'token',
        label: 'Access token',
        description: 'Only for protected topics: an access token (tk_…) of a user allowed to publish',
        required: false,
        secret: true,
        kind: 'string',
      },
      {
        name: 'priority',
        label: 'Priority',
        description: 'How loudly phones announce the alert; empty means default',
        required: false,
        secret: false,
        kind: 'enum',
        options: [...PUSH_PRIORITIES],
      },
    ],
    recipe: [
      'Install the ntfy app on your phone (or open https://ntfy.sh/app in a browser).',
      'Tap + (Subscribe to topic) and choose a long, hard-to-guess topic name such as monitor-alerts-7f3k9q; for a self-hosted server, tick "Use another server" and enter its address.',
      'Enter the same topic name into Topic, and the server address into Server URL unless you use the public server.',
      'If the topic is protected, create a token on the server (ntfy token add <user>, or Account, Access tokens in the web app) and paste it into Access token.',
      'Pick a priority (urgent and high ring through most "do not disturb" settings).',
      'Save and press Test: the phone should show the notification.',
    ],
  };

  validate(config: ChannelConfig): string | null {
    return firstProblem(
      checkKnownFields(config, FIELDS),
      checkString(config, 'topic', true),
      isUnset(config, 'topic') || /^[-_A-Za-z0-9]{1,64}$/.test(stringField(config, 'topic') ?? '')
        ? null
        : 'config.topic must be 1 to 64 letters, digits, - or _',
      checkHttpUrl(config, 'server_url', false),
      checkString(config, 'token', false),
      checkEnum(config, 'priority', PUSH_PRIORITIES),
    );
  }

  async send(config: ChannelConfig, notification: Notification, signal: AbortSignal): Promise<void> {
    const problem = this.validate(config);
    if (problem) throw new DeliveryError(problem, { status: null, retryable: false });
    const token = stringField(config, 'token');
    const priority = (stringField(config, 'priority') ?? 'default').toLowerCase();
    const headers: Record<string, string> = {
      'content-type': 'text/plain; charset=utf-8',
      title: headerText(notification.title),
      priority: String(PUSH_PRIORITIES.indexOf(priority as (typeof PUSH_PRIORITIES)[number]) + 1),
    };
    if (notification.url.trim() !== '') headers['click'] = headerText(notification.url);
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    const base = stringField(config, 'server_url') ?? PUSH_DEFAULT_SERVER;
    await deliverHttp({
      service: 'the push server',
      method: 'POST',
      url: joinUrl(base, encodeURIComponent(stringField(config, 'topic') ?? '')),
      headers,
      body: truncate(notification.message.trim() || notification.title, MAX_MESSAGE),
      signal,
      secrets: [{ value: token, mask: '<token>' }],
      reason: jsonReason('error'),
    });
  }
}
