import { createHash } from 'node:crypto';
import {
  checkHttpUrl,
  checkKnownFields,
  checkString,
  firstProblem,
  isUnset,
  joinUrl,
  stringField,
} from './config';
import { deliverHttp } from './http';
import {
  DeliveryError,
  type ChannelConfig,
  type ChannelTypeDefinition,
  type Notification,
  type Notifier,
} from './notifier';
import { plainText } from './text';

/** Keeps an event well under the protocol's 64 KiB event limit. */
const MAX_BODY = 16_000;
const FIELDS = ['homeserver_url', 'access_token', 'room_id'];

/** Matrix client-server API: PUT …/rooms/{room}/send/m.room.message/{txnId}. */
export class FederatedChatNotifier implements Notifier {
  readonly type = 'federated_chat';
  readonly definition: ChannelTypeDefinition = {
    label: 'Federated chat (Matrix)',
    fields: [
      {
        name: 'homeserver_url',
        label: 'Homeserver URL',
        description: 'Base address of the homeserver, e.g. https://matrix.example.org, without /_matrix/…',
        required: true,
        secret: false,
        kind: 'string',
      },
      {
        name: 'access_token',
        label: 'Access token',
        description: 'Access token of the account that posts; that account must already be in the room',
        required: true,
        secret: true,
        kind: 'string',
      },
      {
        name: 'room_id',
        label: 'Room id',
        description:
          'Internal room id, starting with ! and containing a colon, e.g. !AbCdEf:example.org (not the #alias)',
        required: true,
        secret: false,
        kind: 'string',
      },
    ],
    recipe: [
      'Create (or pick) an account for the monitor on your homeserver, and sign in to it with a client such as Element.',
      'With that account, create the alerts room or join it (accept the invitation): the account must be in the room.',
      'In Element, open Settings, Help & About, Advanced, and copy the Access Token into Access token (keep it secret; signing out of that session revokes it).',
      'Open the room, then Room settings, Advanced, and copy the Internal room ID (starts with !) into Room id.',
      'Put the homeserver’s base address (e.g. https://matrix.example.org) into Homeserver URL.',
      'Save and press Test: the message should appear in the room.',
    ],
  };

  validate(config: ChannelConfig): string | null {
    const roomId = stringField(config, 'room_id') ?? '';
    return firstProblem(
      checkKnownFields(config, FIELDS),
      checkHttpUrl(config, 'homeserver_url', true),
      (stringField(config, 'homeserver_url') ?? '').includes('/_matrix')
        ? 'config.homeserver_url must be the base address of the homeserver, without /_matrix'
        : null,
      checkString(config, 'access_token', true),
      checkString(config, 'room_id', true),
      isUnset(config, 'room_id') || (roomId.startsWith('!') && roomId.includes(':'))
        ? null
        : 'config.room_id must start with ! and contain :',
    );
  }

  async send(config: ChannelConfig, notification: Notification, signal: AbortSignal): Promise<void> {
    const problem = this.validate(config);
    if (problem) throw new DeliveryError(problem, { status: null, retryable: false });
    const token = stringField(config, 'access_token') ?? '';
    const roomId = stringField(config, 'room_id') ?? '';
    const base = stringField(config, 'homeserver_url') ?? '';
    const path = `_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${transactionId(notification)}`;
    await deliverHttp({
      service: 'the homeserver',
      method: 'PUT',
      url: joinUrl(base, path),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ msgtype: 'm.text', body: plainText(notification, MAX_BODY) }),
      signal,
      secrets: [{ value: token, mask: '<access_token>' }],
      reason: matrixReason,
    });
  }
}

/**
 * The same for every attempt at one notification, so a retry after a lost answer is
 * de-duplicated by the homeserver instead of posting the message twice.
 */
export function transactionId(notification: Notification): string {
  const digest = createHash('sha256')
    .update(
      JSON.stringify([
        notification.kind,
        notification.timestamp,
        notification.sensor?.id ?? null,
        notification.incident?.id ?? null,
        notification.title,
        notification.message,
      ]),
    )
    .digest('hex');
  return `monitor-${digest.slice(0, 32)}`;
}

/** Matrix errors are {"errcode": "M_FORBIDDEN", "error": "…"}. */
function matrixReason(body: string): string {
  try {
    const parsed = JSON.parse(body) as { errcode?: unknown; error?: unknown };
    const parts = [parsed.errcode, parsed.error].filter((part): part is string => typeof part === 'string');
    if (parts.length > 0) return parts.join(': ');
  } catch {
    // not JSON
  }
  return body;
}
