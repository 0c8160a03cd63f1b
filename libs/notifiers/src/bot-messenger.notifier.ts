import {
  booleanField,
  checkBoolean,
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
import { plainText } from './text';

export const BOT_API_DEFAULT_URL = 'https://api.telegram.org';
/** What replaces the bot token in every error message. */
export const BOT_TOKEN_MASK = '<bot-token>';
/** The Bot API's limit for one message's text. */
const MAX_TEXT = 4096;
const FIELDS = ['bot_token', 'chat_id', 'thread_id', 'silent', 'api_url'];

/** Telegram-style Bot API: POST {api_url}/bot<token>/sendMessage. */
export class BotMessengerNotifier implements Notifier {
  readonly type = 'bot_messenger';
  readonly definition: ChannelTypeDefinition = {
    label: 'Bot messenger (Telegram Bot API)',
    fields: [
      {
        name: 'bot_token',
        label: 'Bot token',
        description: 'The token BotFather gave you, like 123456789:AAF-abc…',
        required: true,
        secret: true,
        kind: 'string',
      },
      {
        name: 'chat_id',
        label: 'Chat id',
        description:
          'Numeric id of the chat, group or channel (groups are negative, e.g. -1001234567890), or @channelname',
        required: true,
        secret: false,
        kind: 'string',
      },
      {
        name: 'thread_id',
        label: 'Topic (thread) id',
        description: 'Only for groups with topics: the id of the forum topic to post in, not the group id',
        required: false,
        secret: false,
        kind: 'string',
      },
      {
        name: 'silent',
        label: 'Silent',
        description: 'Deliver without a notification sound',
        required: false,
        secret: false,
        kind: 'boolean',
      },
      {
        name: 'api_url',
        label: 'Bot API server',
        description: `Base address of a self-hosted Bot API server; empty means ${BOT_API_DEFAULT_URL}`,
        required: false,
        secret: false,
        kind: 'string',
      },
    ],
    recipe: [
      'In the messenger app, open a chat with @BotFather and send /newbot.',
      'Choose a display name and a username ending in "bot"; BotFather answers with the bot token. Paste it into Bot token.',
      'Add the bot to the group or channel that should receive alerts (for a channel, make it an administrator allowed to post), or open a private chat with it and press Start.',
      'Send any message in that chat, then open https://api.telegram.org/bot<token>/getUpdates in a browser (with your token) and copy "chat":{"id":…} into Chat id, minus sign included.',
      'For a group with topics, open the topic, copy its link (…/c/<group>/<topic>) and put the last number into Topic id.',
      'Save and press Test: the message should appear in the chat.',
    ],
  };

  validate(config: ChannelConfig): string | null {
    return firstProblem(
      checkKnownFields(config, FIELDS),
      checkString(config, 'bot_token', true),
      isUnset(config, 'bot_token') || /^\d+:[A-Za-z0-9_-]+$/.test(String(config['bot_token']).trim())
        ? null
        : 'config.bot_token must look like 123456789:ABC-def (digits, a colon, then letters)',
      checkString(config, 'chat_id', true, true),
      isUnset(config, 'chat_id') ||
        /^(-?\d+|@[A-Za-z][A-Za-z0-9_]{3,})$/.test(stringField(config, 'chat_id') ?? '')
        ? null
        : 'config.chat_id must be a numeric chat id (e.g. -1001234567890) or @channelname',
      checkString(config, 'thread_id', false, true),
      isUnset(config, 'thread_id') || /^[1-9]\d*$/.test(stringField(config, 'thread_id') ?? '')
        ? null
        : 'config.thread_id must be a positive whole number (the forum topic id)',
      checkBoolean(config, 'silent'),
      checkHttpUrl(config, 'api_url', false),
    );
  }

  async send(config: ChannelConfig, notification: Notification, signal: AbortSignal): Promise<void> {
    const token = stringField(config, 'bot_token');
    const secrets = [{ value: token, mask: BOT_TOKEN_MASK }];
    const problem = this.validate(config);
    if (problem || token === undefined) {
      throw new DeliveryError(problem ?? 'config.bot_token is required', { status: null, retryable: false });
    }
    const chatId = stringField(config, 'chat_id') ?? '';
    const threadId = stringField(config, 'thread_id');
    const payload: Record<string, unknown> = {
      chat_id: /^-?\d+$/.test(chatId) ? Number(chatId) : chatId,
      text: plainText(notification, MAX_TEXT),
    };
    if (threadId !== undefined) payload['message_thread_id'] = Number(threadId);
    payload['disable_notification'] = booleanField(config, 'silent');
    const base = stringField(config, 'api_url') ?? BOT_API_DEFAULT_URL;
    const { body } = await deliverHttp({
      service: 'the Bot API',
      method: 'POST',
      url: joinUrl(base, `bot${token}/sendMessage`),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal,
      secrets,
      reason: jsonReason('description'),
    });
    // The Bot API says {"ok":false,…} on refusal; a 2xx without ok:true is not a delivery.
    let ok: boolean;
    try {
      ok = (JSON.parse(body) as { ok?: unknown }).ok === true;
    } catch {
      ok = false;
    }
    if (!ok) {
      throw new DeliveryError('the Bot API answered without "ok": true', { status: null, retryable: false });
    }
  }
}
