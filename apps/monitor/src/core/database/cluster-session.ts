import { Inject, Injectable } from '@nestjs/common';
import { Client, type Notification } from 'pg';
import { MONITOR_CONFIG } from '../config/config.tokens';
import type { MonitorConfig } from '../config/monitor-config';
import { APP_LOGGER } from '../logging/logging.tokens';
import type { AppLogger } from '../logging/logger';
import { CONNECT_TIMEOUT_MS } from './open-postgres';
import { StorageUnavailableError } from './storage-errors';

const RECONNECT_MS = 1000;

/** Advisory lock classes (the two-integer key space; the migration lock uses the one-bigint space). */
export const LOCK_CLASS = { instanceName: 71_516_001, singleton: 71_516_002 } as const;

/**
 * This instance's own PostgreSQL session beside the pool: it holds the session-level advisory locks
 * (the instance's name, cluster-wide singletons) and LISTENs for the other instances. Both live as
 * long as the session, so PostgreSQL frees them the moment this process dies, kill -9 included.
 * A lost session reconnects every second and runs the `onReconnect` hooks (re-take, re-listen).
 */
@Injectable()
export class ClusterSession {
  private client?: Client;
  private closing = false;
  private connected = false;
  private readonly listeners = new Map<string, (payload: string) => void>();
  private readonly reconnectHooks: (() => Promise<void>)[] = [];
  private retry?: NodeJS.Timeout;
  private reconnecting = false;

  constructor(
    @Inject(MONITOR_CONFIG) private readonly config: MonitorConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  get isConnected(): boolean {
    return this.connected;
  }

  async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.config.database_url ?? undefined,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'monitor cluster',
    });
    client.on('notification', (message: Notification) => {
      if (message.payload !== undefined) this.listeners.get(message.channel)?.(message.payload);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    this.client = client;
    this.connected = true;
    for (const channel of this.listeners.keys()) await client.query(`LISTEN ${channel}`);
  }

  private lost(client: Client): void {
    if (this.client !== client || this.closing) return;
    this.client = undefined;
    this.connected = false;
    this.logger.warn('lost the cluster connection to the database; reconnecting');
    void client.end().catch(() => undefined);
    this.reconnectLater();
  }

  /**
   * One reconnection at a time: a session lost again while the hooks run (a second restart) and
   * the hooks' failure both ask for one. Two would leave an orphaned session holding the name
   * lock and listening, so the next re-take fails and every notification arrives twice.
   */
  private reconnectLater(): void {
    if (this.closing || this.retry || this.reconnecting) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.reconnect();
    }, RECONNECT_MS);
    this.retry.unref();
  }

  private async reconnect(): Promise<void> {
    if (this.closing) return;
    this.reconnecting = true;
    try {
      await this.connect();
      for (const hook of this.reconnectHooks) await hook();
      if (this.client) this.logger.info('cluster connection to the database restored');
    } catch {
      const client = this.client;
      this.client = undefined;
      this.connected = false;
      client?.end().catch(() => undefined);
    } finally {
      this.reconnecting = false;
    }
    // Failed, or lost again while the hooks ran: another try.
    if (!this.client) this.reconnectLater();
  }

  onReconnect(hook: () => Promise<void>): void {
    this.reconnectHooks.push(hook);
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      if (!this.client) throw new Error('not connected');
      return (await this.client.query(sql, params)).rows as T[];
    } catch (error) {
      // Answered 503 like any storage failure; the cause stays in the log.
      throw new StorageUnavailableError(
        503,
        `the cluster connection to the database is down (${(error as Error).message}); try again`,
      );
    }
  }

  /** Channel names are our own constants (LISTEN takes no parameters). */
  async listen(channel: string, handler: (payload: string) => void): Promise<void> {
    this.listeners.set(channel, handler);
    if (this.client) await this.client.query(`LISTEN ${channel}`);
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /** A session advisory lock on (class, hashtext(name)), taken only if free. */
  async tryLock(lockClass: number, name: string): Promise<boolean> {
    const [row] = await this.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [
      lockClass,
      name,
    ]);
    return row.ok;
  }

  async unlock(lockClass: number, name: string): Promise<void> {
    await this.query('SELECT pg_advisory_unlock($1, hashtext($2))', [lockClass, name]);
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    this.connected = false;
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
  }
}
