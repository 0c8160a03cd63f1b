import { createHmac } from 'node:crypto';
import { checkEnum, checkHttpUrl, checkKnownFields, checkString, firstProblem, stringField } from './config';
import { deliverHttp } from './http';
import {
  DeliveryError,
  type ChannelConfig,
  type ChannelTypeDefinition,
  type Notification,
  type Notifier,
} from './notifier';

export const WEBHOOK_METHODS = ['POST', 'PUT', 'PATCH'] as const;
type WebhookMethod = (typeof WEBHOOK_METHODS)[number];
const FIELDS = ['url', 'method', 'hmac_secret'];

/** The generic webhook's JSON body (additions stay backward compatible). */
export function webhookBody(notification: Notification): Record<string, unknown> {
  const { sensor, result, incident } = notification;
  return {
    event: notification.kind,
    title: notification.title,
    message: notification.message,
    url: notification.url,
    timestamp: notification.timestamp,
    sensor: sensor && {
      id: sensor.id,
      name: sensor.name,
      type: sensor.type,
      target: sensor.target,
      group: sensor.group,
      tags: [...sensor.tags],
    },
    result: result && {
      ts: result.ts,
      success: result.success,
      status_code: result.status_code,
      message: result.message,
      latency_ms: result.latency_ms,
    },
    // Present for down, reminder and recovery events; a test has no incident.
    incident:
      notification.kind === 'test' || !incident
        ? null
        : {
            id: incident.id,
            started_at: incident.started_at,
            cause: incident.cause,
            ...(incident.resolved_at ? { resolved_at: incident.resolved_at } : {}),
          },
  };
}

/** `sha256=<hex>`: HMAC-SHA256 with the channel's secret over the exact body bytes. */
export function webhookSignature(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Generic webhook: JSON to any address, optionally signed. */
export class WebhookNotifier implements Notifier {
  readonly type = 'webhook';
  readonly definition: ChannelTypeDefinition = {
    label: 'Webhook (generic JSON)',
    fields: [
      {
        name: 'url',
        label: 'URL',
        description: 'Address that receives the JSON request (http or https)',
        required: true,
        secret: false,
        kind: 'string',
      },
      {
        name: 'method',
        label: 'Method',
        description: 'HTTP verb of the request; empty means POST',
        required: false,
        secret: false,
        kind: 'enum',
        options: [...WEBHOOK_METHODS],
      },
      {
        name: 'hmac_secret',
        label: 'Signing secret',
        description:
          'When set, each request carries X-Monitor-Signature: sha256=<hex>, the HMAC-SHA256 of the raw body with this secret',
        required: false,
        secret: true,
        kind: 'string',
      },
    ],
    recipe: [
      'Set up an endpoint that accepts a JSON request (your own service, or an automation tool’s "webhook" trigger) and copy its address into URL.',
      'Choose the method the endpoint expects (POST unless told otherwise).',
      'Optionally invent a long random signing secret, enter it here and in the receiver, and have the receiver compare X-Monitor-Signature with sha256= plus the hex HMAC-SHA256 of the raw body bytes before parsing them.',
      'The header X-Monitor-Event says down, up, reminder or test; the body carries event, title, message, url, timestamp, sensor, result and incident.',
      'Save and press Test: the receiver should get an event "test" and answer with a 2xx status.',
    ],
  };

  validate(config: ChannelConfig): string | null {
    return firstProblem(
      checkKnownFields(config, FIELDS),
      checkHttpUrl(config, 'url', true),
      checkEnum(config, 'method', WEBHOOK_METHODS),
      checkString(config, 'hmac_secret', false),
    );
  }

  async send(config: ChannelConfig, notification: Notification, signal: AbortSignal): Promise<void> {
    const problem = this.validate(config);
    if (problem) throw new DeliveryError(problem, { status: null, retryable: false });
    const secret =
      typeof config['hmac_secret'] === 'string' && config['hmac_secret'] !== ''
        ? config['hmac_secret']
        : undefined;
    const method = (stringField(config, 'method') ?? 'POST').toUpperCase() as WebhookMethod;
    const body = Buffer.from(JSON.stringify(webhookBody(notification)), 'utf8');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-monitor-event': notification.kind,
    };
    if (secret !== undefined) headers['x-monitor-signature'] = webhookSignature(secret, body);
    await deliverHttp({
      service: 'the webhook receiver',
      method,
      url: stringField(config, 'url') ?? '',
      headers,
      body,
      signal,
      secrets: [{ value: secret, mask: '<hmac_secret>' }],
    });
  }
}
