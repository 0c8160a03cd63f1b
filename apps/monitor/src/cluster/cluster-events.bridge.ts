import { Inject, Injectable, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { ClusterSession } from '../core/database/cluster-session';
import { EventBus, type MonitorEvents } from '../core/events/event-bus';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { INSTANCE_IDENTITY, type InstanceIdentity } from '../core/process/instance-identity';
import { RemoteChanges, type RemoteEvent } from './remote-changes.service';

/** NOTIFY channel carrying the events of every instance to the others. */
export const EVENTS_CHANNEL = 'monitor_events';
/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more. */
export const PAYLOAD_LIMIT = 7900;
/** Longer strings (a probe's message, an incident's note) are cut for the trip; storage has them whole. */
const LONGEST_STRING = 1000;
const BATCH_MS = 20;

/** The events that cross instances; `alert` stays with the instance that delivers it. */
export const BRIDGED_KINDS = [
  'result',
  'status',
  'incident',
  'sensor',
  'channel',
  'settings',
  'maintenance',
  'statusPage',
  'push',
] as const satisfies readonly (keyof MonitorEvents)[];
type BridgedKind = (typeof BRIDGED_KINDS)[number];

/** One NOTIFY: the sender's token and its events in the order they happened; `r` asks for a resync. */
interface Message {
  o: string;
  e: [BridgedKind, unknown][];
  r?: true;
}

/**
 * Live events across instances: every event this instance publishes goes out by NOTIFY (batched
 * for 20 ms, in order, each message under PostgreSQL's payload limit), and every other instance
 * publishes it again on its own bus, so a browser connected anywhere sees everything, and the
 * instance that probes a sensor hears of edits made through another. A started instance asks the
 * others to re-read the sensors (the configuration file it applied), and so does one whose cluster
 * session came back (events sent meanwhile are lost).
 */
@Injectable()
export class ClusterEventsBridge implements OnModuleInit, OnApplicationBootstrap {
  private pending: [BridgedKind, unknown][] = [];
  private timer?: NodeJS.Timeout;
  private readonly subscriptions: Subscription[] = [];

  constructor(
    @Inject(INSTANCE_IDENTITY) private readonly self: InstanceIdentity,
    private readonly session: ClusterSession,
    private readonly bus: EventBus,
    private readonly remote: RemoteChanges,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.self.clustered) return;
    for (const kind of BRIDGED_KINDS)
      this.subscriptions.push(
        this.bus.on(kind).subscribe((payload) => {
          if (!this.bus.isRemote) this.queue(kind, payload);
        }),
      );
    await this.session.listen(EVENTS_CHANNEL, (payload) => this.receive(payload));
    this.session.onReconnect(async () => {
      this.remote.quietly(this.remote.resync());
      await this.send({ o: this.self.token, e: [], r: true });
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.self.clustered) await this.send({ o: this.self.token, e: [], r: true });
  }

  private queue(kind: BridgedKind, payload: unknown): void {
    this.pending.push([kind, payload]);
    this.timer ??= setTimeout(() => void this.flush(), BATCH_MS);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    const events = this.pending;
    this.pending = [];
    for (const message of packMessages(this.self.token, events)) await this.send(message);
  }

  private async send(message: Message): Promise<void> {
    try {
      await this.session.notify(EVENTS_CHANNEL, JSON.stringify(message));
    } catch (error) {
      this.logger.warn({ error: (error as Error).message }, 'could not pass events to the other instances');
    }
  }

  private receive(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (message.o === this.self.token) return;
    if (message.r) this.remote.quietly(this.remote.resync());
    for (const [kind, payload] of message.e ?? []) {
      if (!(BRIDGED_KINDS as readonly string[]).includes(kind)) continue;
      this.bus.emitRemote(kind, payload as MonitorEvents[typeof kind]);
      this.remote.apply({ kind, payload } as RemoteEvent);
    }
  }
}

/** Events in messages under the payload limit, in order; an event too large even alone is shortened. */
export function packMessages(token: string, events: [BridgedKind, unknown][]): Message[] {
  const messages: Message[] = [];
  const overhead = Buffer.byteLength(JSON.stringify({ o: token, e: [] }));
  let current: [BridgedKind, unknown][] = [];
  let size = overhead;
  for (const [kind, payload] of events) {
    let event: [BridgedKind, unknown] = [kind, payload];
    let bytes = Buffer.byteLength(JSON.stringify(event)) + 1;
    if (overhead + bytes > PAYLOAD_LIMIT) {
      event = [kind, shorten(payload)];
      bytes = Buffer.byteLength(JSON.stringify(event)) + 1;
      if (overhead + bytes > PAYLOAD_LIMIT) continue;
    }
    if (size + bytes > PAYLOAD_LIMIT) {
      messages.push({ o: token, e: current });
      current = [];
      size = overhead;
    }
    current.push(event);
    size += bytes;
  }
  if (current.length > 0) messages.push({ o: token, e: current });
  return messages;
}

function shorten(value: unknown): unknown {
  if (typeof value === 'string')
    return value.length > LONGEST_STRING ? `${value.slice(0, LONGEST_STRING)}…` : value;
  if (Array.isArray(value)) return value.map(shorten);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
  return value;
}
