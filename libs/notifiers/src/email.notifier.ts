import nodemailer from 'nodemailer';
import type { NodemailerError } from 'nodemailer';
import {
  booleanField,
  checkBoolean,
  checkEnum,
  checkKnownFields,
  checkString,
  firstProblem,
  isUnset,
  stringField,
} from './config';
import { scrubSecrets, type Secret } from './http';
import { emailHtml, emailText, parseAddressList, smtpPort } from './email-message';
import {
  DeliveryError,
  type ChannelConfig,
  type ChannelTypeDefinition,
  type Notification,
  type Notifier,
} from './notifier';

export const EMAIL_SECURITY = ['none', 'starttls', 'tls'] as const;
export type EmailSecurity = (typeof EMAIL_SECURITY)[number];
const FIELDS = [
  'host',
  'port',
  'security',
  'username',
  'password',
  'from',
  'to',
  'reply_to',
  'insecure_skip_verify',
];
/** Each SMTP wait of nodemailer; the delivery's own 10 s attempt limit aborts earlier anyway. */
const SMTP_TIMEOUT_MS = 10_000;
const MAX_REASON_CHARS = 300;

/** E-mail over SMTP with nodemailer: subject the rendered title, a text body and its HTML alternative. */
export class EmailNotifier implements Notifier {
  readonly type = 'email';
  readonly definition: ChannelTypeDefinition = {
    label: 'E-mail (SMTP)',
    fields: [
      {
        name: 'host',
        label: 'SMTP server',
        description: 'Host name of the outgoing mail server, e.g. smtp.gmail.com',
        required: true,
        secret: false,
        kind: 'string',
      },
      {
        name: 'port',
        label: 'Port',
        description: 'Empty means 587 for STARTTLS, 465 for TLS and 25 for none',
        required: false,
        secret: false,
        kind: 'string',
      },
      {
        name: 'security',
        label: 'Security',
        description:
          'starttls (port 587) upgrades a plain connection and refuses to go on without it; tls (port 465) is encrypted from the start; none sends in clear text (only inside a trusted network). Empty means starttls',
        required: false,
        secret: false,
        kind: 'enum',
        options: [...EMAIL_SECURITY],
      },
      {
        name: 'username',
        label: 'User name',
        description: 'Account to sign in with, usually the full address; empty for a relay without sign-in',
        required: false,
        secret: false,
        kind: 'string',
      },
      {
        name: 'password',
        label: 'Password',
        description: 'The account password, or an app password where the provider requires one',
        required: false,
        secret: true,
        kind: 'string',
      },
      {
        name: 'from',
        label: 'From',
        description: 'Sender address, e.g. monitor@example.com; most providers require your own address',
        required: true,
        secret: false,
        kind: 'string',
      },
      {
        name: 'to',
        label: 'To',
        description: 'One or more recipient addresses, separated by commas',
        required: true,
        secret: false,
        kind: 'string',
      },
      {
        name: 'reply_to',
        label: 'Reply to',
        description: 'Optional address that replies go to',
        required: false,
        secret: false,
        kind: 'string',
      },
      {
        name: 'insecure_skip_verify',
        label: 'Accept any certificate',
        description:
          "Skip checking the server's certificate (a self-signed one on a private server); leaves the connection open to interception",
        required: false,
        secret: false,
        kind: 'boolean',
      },
    ],
    recipe: [
      "Look up your mail provider's SMTP settings: for example Gmail uses smtp.gmail.com, port 587, STARTTLS; Outlook.com uses smtp-mail.outlook.com, port 587, STARTTLS; Fastmail uses smtp.fastmail.com, port 465, TLS.",
      'If the account has two-step sign-in, create an app password (Gmail: Google Account, Security, App passwords; Fastmail: Settings, Privacy & Security, App passwords) and use it instead of your normal password.',
      'Enter the server into SMTP server, choose Security, and leave Port empty unless the provider names another one.',
      'Enter the account into User name and the (app) password into Password; leave both empty for a relay inside your network that needs no sign-in.',
      'Enter your own address into From and the recipients, separated by commas, into To.',
      'Save and press Test: every recipient should get a message titled with the test alert.',
    ],
  };

  validate(config: ChannelConfig): string | null {
    return firstProblem(
      checkKnownFields(config, FIELDS),
      checkString(config, 'host', true),
      isUnset(config, 'host') || /^[^\s/:@]+$|^\[[0-9a-fA-F:.]+\]$/.test(stringField(config, 'host') ?? '')
        ? null
        : 'config.host must be a host name or address without scheme, port or spaces',
      checkString(config, 'port', false, true),
      checkEnum(config, 'security', EMAIL_SECURITY),
      isUnset(config, 'port') || smtpPort(stringField(config, 'port'), 'starttls') !== null
        ? null
        : 'config.port must be a whole number from 1 to 65535',
      checkString(config, 'username', false),
      checkString(config, 'password', false),
      !isUnset(config, 'password') && isUnset(config, 'username')
        ? 'config.username is required when config.password is set'
        : null,
      checkString(config, 'from', true),
      addressProblem(config, 'from', true),
      checkString(config, 'to', true),
      addressProblem(config, 'to', false),
      checkString(config, 'reply_to', false),
      addressProblem(config, 'reply_to', false),
      checkBoolean(config, 'insecure_skip_verify'),
    );
  }

  async send(config: ChannelConfig, notification: Notification, signal: AbortSignal): Promise<void> {
    const problem = this.validate(config);
    if (problem) throw new DeliveryError(problem, { status: null, retryable: false });
    const host = stringField(config, 'host') ?? '';
    const security = (stringField(config, 'security') ?? 'starttls').toLowerCase() as EmailSecurity;
    const port = smtpPort(stringField(config, 'port'), security) as number;
    const username = stringField(config, 'username');
    // A password is used as typed: surrounding spaces may belong to it.
    const password = typeof config['password'] === 'string' ? config['password'] : undefined;
    const secrets = passwordForms(username, password);
    const server = `the SMTP server ${host}:${port}`;
    if (signal.aborted) throw timedOut(server);

    const transport = nodemailer.createTransport({
      host: host.replace(/^\[|\]$/g, ''),
      port,
      secure: security === 'tls',
      requireTLS: security === 'starttls',
      // "none" means none: no opportunistic upgrade that a broken server certificate could fail.
      ignoreTLS: security === 'none',
      auth: username !== undefined ? { user: username, pass: password ?? '' } : undefined,
      tls: {
        rejectUnauthorized: !booleanField(config, 'insecure_skip_verify'),
        servername: /^[\d.]+$|:/.test(host) ? undefined : host,
      },
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    // A transport closed mid-send may not settle before its own time-outs, so the abort wins the race.
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(timedOut(server));
    });
    aborted.catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    const sending = transport.sendMail({
      from: stringField(config, 'from'),
      to: parseAddressList(stringField(config, 'to') ?? '').addresses,
      replyTo: stringField(config, 'reply_to'),
      subject: oneLine(notification.title) || 'Monitor alert',
      text: emailText(notification),
      html: emailHtml(notification),
    });
    sending.catch(() => undefined);
    try {
      const info = await Promise.race([sending, aborted]);
      const rejected = (info.rejected ?? []).map(String);
      if (rejected.length > 0) {
        // Some recipients have it already: a retry would send it to them twice.
        throw new DeliveryError(
          scrubSecrets(`${server} refused the recipients ${rejected.join(', ')}`, secrets),
          { status: null, retryable: false },
        );
      }
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      if (signal.aborted) throw timedOut(server);
      throw smtpError(error as NodemailerError, server, secrets, security);
    } finally {
      signal.removeEventListener('abort', onAbort);
      transport.close();
    }
  }
}

function addressProblem(config: ChannelConfig, name: string, single: boolean): string | null {
  const text = stringField(config, name);
  if (text === undefined) return null;
  const { addresses, invalid } = parseAddressList(text);
  if (invalid !== null) return `config.${name} has an invalid address ${JSON.stringify(invalid)}`;
  if (addresses.length === 0) return `config.${name} must contain an e-mail address`;
  if (single && addresses.length > 1) return `config.${name} must be one address`;
  return null;
}

/**
 * The password as it may appear in a server's answer or a library message: raw, and base64 as an
 * AUTH LOGIN or AUTH PLAIN exchange carries it.
 */
export function passwordForms(username: string | undefined, password: string | undefined): Secret[] {
  if (password === undefined || password === '') return [];
  const mask = '<password>';
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const forms = [password, base64(password), base64(`\0${username ?? ''}\0${password}`)];
  if (username !== undefined) forms.push(base64(`${username}\0${username}\0${password}`));
  return forms.map((value) => ({ value, mask }));
}

/**
 * The rule mirrors HTTP's: a 4xx reply is not retried, a 5xx reply or a failure to reach
 * the server (connection, TLS, time-out) is (docs/decisions.md, "E-mail delivery rules").
 */
export function smtpError(
  error: NodemailerError,
  server: string,
  secrets: readonly Secret[],
  security: EmailSecurity,
): DeliveryError {
  const scrub = (text: string) => scrubSecrets(text, secrets);
  const code = typeof error.responseCode === 'number' ? error.responseCode : null;
  if (code !== null && code >= 400 && code < 600) {
    const reply = cut(scrub(oneLine(error.response ?? error.message ?? '')));
    const what =
      error.code === 'EAUTH'
        ? 'refused the sign-in'
        : /STARTTLS/i.test(error.command ?? '')
          ? 'does not offer STARTTLS'
          : 'refused the message';
    return new DeliveryError(scrub(`${server} ${what}: ${reply || code}`), {
      status: code,
      retryable: code >= 500,
    });
  }
  if (error.code === 'ECONFIG' || error.code === 'ENOAUTH') {
    return new DeliveryError(scrub(`${server} could not be used: ${cut(oneLine(error.message))}`), {
      status: null,
      retryable: false,
    });
  }
  const detail = cut(scrub(oneLine(error.message ?? String(error))));
  if (isCertificateError(error)) {
    return new DeliveryError(
      `${server} presented a certificate that is not trusted (${detail}); set insecure_skip_verify to accept it`,
      { status: null, retryable: true },
    );
  }
  if (security === 'starttls' && /STARTTLS/i.test(detail)) {
    return new DeliveryError(`${server} does not offer STARTTLS (${detail})`, {
      status: null,
      retryable: true,
    });
  }
  return new DeliveryError(`could not reach ${server}: ${detail}`, { status: null, retryable: true });
}

function isCertificateError(error: NodemailerError): boolean {
  const codes = [error.code, error.originalCode].filter((c): c is string => typeof c === 'string');
  return (
    codes.some((c) => /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT_ALTNAME/.test(c)) ||
    /self[- ]signed certificate|unable to verify|certificate has expired|Hostname\/IP does not match/i.test(
      error.message ?? '',
    )
  );
}

function timedOut(server: string): DeliveryError {
  return new DeliveryError(`${server} did not finish before the attempt's time limit`, {
    status: null,
    retryable: true,
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cut(text: string): string {
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 1)}…` : text;
}
