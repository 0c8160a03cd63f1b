import type Database from 'better-sqlite3';
import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import { connectionFree } from './connection-free';
import type { Dialect } from './dialect';
import { dialectOf } from './dialect';
import { sqliteHandle } from './sqlite-handle';
import { OPEN_TRANSACTION_WAIT_MS } from './write-atomically';

/** What a write changed: rows affected. */
export interface RunResult {
  changes: number;
}

/**
 * Statements in one SQL text for both backends: `?` placeholders, booleans as JavaScript booleans
 * (SQLite stores 1/0), `RETURNING`, `ON CONFLICT`, and the fragments below where the dialects differ.
 */
export interface SqlExecutor {
  readonly dialect: Dialect;
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  run(sql: string, params?: readonly unknown[]): Promise<RunResult>;
}

export interface TransactionOptions {
  /** A consistent snapshot for reading only: takes no write lock (SQLite) / REPEATABLE READ (PostgreSQL). */
  readOnly?: boolean;
}

export interface SqlClient extends SqlExecutor {
  /** Runs `work` in one transaction: all of it commits, or none of it (the error is rethrown). */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** `expr LIKE ?` folding ASCII letters only on both backends (SQLite's LIKE; PostgreSQL's ILIKE folds more). */
export function likeFragment(dialect: Dialect, expression: string): string {
  return dialect === 'postgres'
    ? // COLLATE "C": PostgreSQL 15 refuses LIKE on a nondeterministic collation (users.username).
      `translate(${expression}, '${UPPER}', '${LOWER}') COLLATE "C" LIKE translate(?, '${UPPER}', '${LOWER}') ESCAPE '\\'`
    : `${expression} LIKE ? ESCAPE '\\'`;
}
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = UPPER.toLowerCase();

/** The larger of two values (SQLite's two-argument max is PostgreSQL's GREATEST). */
export const greatestFragment = (dialect: Dialect, a: string, b: string): string =>
  dialect === 'postgres' ? `GREATEST(${a}, ${b})` : `max(${a}, ${b})`;

/**
 * After rows were inserted with explicit ids (restore, moving an installation), the next generated
 * id must follow the largest one. SQLite's AUTOINCREMENT does that by itself.
 */
export async function resetIdentity(executor: SqlExecutor, table: string): Promise<void> {
  if (executor.dialect !== 'postgres') return;
  await executor.get(
    `SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), coalesce((SELECT max(id) FROM "${table}"), 0) + 1, false)`,
  );
}

/** Whether `error` is a row refused by a UNIQUE index or primary key, on either backend. */
export function isUniqueViolationError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/** Whether `error` is a row refused by a FOREIGN KEY constraint, on either backend. */
export function isForeignKeyViolationError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}

/** A boolean column as read back: SQLite answers 1/0, PostgreSQL true/false. */
export const boolOf = (value: unknown): boolean => value === true || value === 1 || value === '1';

/** `(a LIKE ? OR b LIKE ? ...)` with likeFragment's folding (one parameter each). */
export const anyLikeFragment = (dialect: Dialect, expressions: string[]): string =>
  `(${expressions.map((e) => likeFragment(dialect, e)).join(' OR ')})`;

const clients = new WeakMap<DataSource, SqlClient>();

/**
 * The SqlClient over the DataSource's own connection (SQLite) or pool (PostgreSQL): one per
 * DataSource, since SQLite's transactions queue on the client that started them.
 */
export function sqlClientFor(dataSource: DataSource): SqlClient {
  let client = clients.get(dataSource);
  if (!client) {
    // Statements go to the connection's logger like TypeORM's own (off unless logging is on).
    const log: QueryLog = (sql, params) => dataSource.logger.logQuery(sql, params as unknown[]);
    client =
      dialectOf(dataSource) === 'postgres'
        ? new PostgresClient((dataSource.driver as unknown as { master: Pool }).master, log)
        : new SqliteClient(sqliteHandle(dataSource), log);
    clients.set(dataSource, client);
  }
  return client;
}

/** Where a client reports each statement it runs. */
export type QueryLog = (sql: string, params?: readonly unknown[]) => void;

const MAX_CACHED_STATEMENTS = 500;

const sqliteValue = (value: unknown): unknown =>
  value === true ? 1 : value === false ? 0 : value === undefined ? null : value;

/**
 * SQLite: statements run synchronously on the shared connection. A transaction spans awaits, so
 * while one is open every other statement of this client waits for it instead of joining it.
 */
export class SqliteClient implements SqlClient {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Database.Statement>();
  private queue: Promise<unknown> = Promise.resolve();
  private open = false;

  constructor(
    private readonly db: Database.Database,
    private readonly log?: QueryLog,
  ) {}

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      // Statements built for a varying number of values (IN lists, batches) must not pile up.
      if (this.statements.size >= MAX_CACHED_STATEMENTS) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private exec(sql: string, params: readonly unknown[] = []): { rows: unknown[]; changes: number } {
    this.log?.(sql, params);
    const statement = this.statement(sql);
    const values = params.map(sqliteValue);
    if (statement.reader) return { rows: statement.all(...values), changes: 0 };
    return { rows: [], changes: statement.run(...values).changes };
  }

  /** Outside a transaction: waits for an open one to end first. */
  private async outside<T>(run: () => T): Promise<T> {
    if (this.open) await this.queue.catch(() => undefined);
    return run();
  }

  private readonly executor = (): SqlExecutor => ({
    dialect: this.dialect,
    all: <T>(sql: string, params?: readonly unknown[]) => Promise.resolve(this.exec(sql, params).rows as T[]),
    get: <T>(sql: string, params?: readonly unknown[]) =>
      Promise.resolve(this.exec(sql, params).rows[0] as T | undefined),
    run: (sql: string, params?: readonly unknown[]) =>
      Promise.resolve({ changes: this.exec(sql, params).changes }),
  });

  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.outside(() => this.exec(sql, params).rows as T[]);
  }

  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined> {
    return this.outside(() => this.exec(sql, params).rows[0] as T | undefined);
  }

  run(sql: string, params?: readonly unknown[]): Promise<RunResult> {
    return this.outside(() => ({ changes: this.exec(sql, params).changes }));
  }

  /** `work` must use `tx`, never this client: its statements would wait for the transaction itself. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const result = this.queue.catch(() => undefined).then(() => this.inTransaction(work, options));
    this.queue = result;
    return result;
  }

  private async inTransaction<T>(
    work: (tx: SqlExecutor) => Promise<T>,
    options: TransactionOptions,
  ): Promise<T> {
    // A synchronous transaction of a hot path never spans an await; TypeORM's may: wait it out.
    if (!(await connectionFree(this.db, OPEN_TRANSACTION_WAIT_MS)))
      throw Object.assign(new Error('the database stayed busy'), { code: 'SQLITE_BUSY' });
    // A reader's snapshot starts at its first SELECT and never blocks the writers (WAL).
    this.db.exec(options.readOnly ? 'BEGIN' : 'BEGIN IMMEDIATE');
    this.open = true;
    try {
      const value = await work(this.executor());
      this.db.exec('COMMIT');
      return value;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    } finally {
      this.open = false;
    }
  }
}

/** PostgreSQL: statements go to the pool; a transaction holds one client from BEGIN to COMMIT. */
export class PostgresClient implements SqlClient {
  readonly dialect = 'postgres' as const;

  constructor(
    private readonly pool: Pool,
    private readonly log?: QueryLog,
  ) {}

  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    this.log?.(sql, params);
    return query<T>(this.pool, sql, params);
  }

  async get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined> {
    this.log?.(sql, params);
    return (await query<T>(this.pool, sql, params))[0];
  }

  async run(sql: string, params?: readonly unknown[]): Promise<RunResult> {
    this.log?.(sql, params);
    const result = await this.pool.query(toPositional(sql), params as unknown[]);
    return { changes: result.rowCount ?? 0 };
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query(options.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      const value = await work(clientExecutor(client, this.log));
      await client.query('COMMIT');
      client.release();
      return value;
    } catch (error) {
      // A client whose ROLLBACK fails (the connection broke) is destroyed instead of reused.
      const rolledBack = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      client.release(!rolledBack);
      throw error;
    }
  }
}

function clientExecutor(client: PoolClient, log?: QueryLog): SqlExecutor {
  return {
    dialect: 'postgres',
    all: <T>(sql: string, params?: readonly unknown[]) => {
      log?.(sql, params);
      return query<T>(client, sql, params);
    },
    get: async <T>(sql: string, params?: readonly unknown[]) => {
      log?.(sql, params);
      return (await query<T>(client, sql, params))[0];
    },
    run: async (sql: string, params?: readonly unknown[]) => {
      log?.(sql, params);
      return { changes: (await client.query(toPositional(sql), params as unknown[])).rowCount ?? 0 };
    },
  };
}

async function query<T>(target: Pool | PoolClient, sql: string, params?: readonly unknown[]): Promise<T[]> {
  return (await target.query(toPositional(sql), params as unknown[])).rows as T[];
}

const positional = new Map<string, string>();

/**
 * `?` placeholders as PostgreSQL's `$1, $2, …`, leaving string literals, quoted identifiers and
 * comments alone. Translations are cached: the same few hundred statements run all day.
 */
export function toPositional(sql: string): string {
  const cached = positional.get(sql);
  if (cached !== undefined) return cached;
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const stop = end === -1 ? sql.length - 1 : end;
      out += sql.slice(i, stop + 1);
      i = stop;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length - 1 : end;
      out += sql.slice(i, stop + 1);
      i = stop;
    } else if (c === '?') {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  positional.set(sql, out);
  return out;
}
