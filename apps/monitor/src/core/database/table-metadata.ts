import type { SqlExecutor } from './sql-client';

/** What copying a table needs to know about it, read from the database's own catalogue. */
export interface TableShape {
  name: string;
  columns: string[];
  /** Columns PostgreSQL stores as boolean (SQLite keeps 1/0 in them). */
  booleans: Set<string>;
  primaryKey: string[];
  /** Tables this one references, itself excluded. */
  references: string[];
  /** Columns referencing the table itself (a sensor's parent). */
  selfReferences: string[];
}

/** The table of applied migrations: each database keeps its own. */
export const MIGRATIONS_TABLE = 'migrations';

/** Every table of the schema but the migrations table, parents before the tables referencing them. */
export async function readTableShapes(db: SqlExecutor): Promise<TableShape[]> {
  const names = await tableNames(db);
  const shapes = [];
  for (const name of names) shapes.push(await (db.dialect === 'postgres' ? pgShape : sqliteShape)(db, name));
  return parentsFirst(shapes);
}

async function tableNames(db: SqlExecutor): Promise<string[]> {
  const rows =
    db.dialect === 'postgres'
      ? await db.all<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables
           WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
        )
      : await db.all<{ name: string }>(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
        );
  return rows.map((r) => r.name).filter((name) => name !== MIGRATIONS_TABLE);
}

async function sqliteShape(db: SqlExecutor, name: string): Promise<TableShape> {
  const columns = await db.all<{ name: string; pk: number }>(
    'SELECT name, pk FROM pragma_table_info(?) ORDER BY cid',
    [name],
  );
  const keys = await db.all<{ ref: string; col: string }>(
    'SELECT "table" AS ref, "from" AS col FROM pragma_foreign_key_list(?)',
    [name],
  );
  return shape(
    name,
    columns.map((c) => c.name),
    new Set(),
    columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name),
    keys,
  );
}

async function pgShape(db: SqlExecutor, name: string): Promise<TableShape> {
  const columns = await db.all<{ name: string; type: string }>(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
    [name],
  );
  const primaryKey = await db.all<{ name: string }>(
    `SELECT a.attname AS name FROM pg_index i
     JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
     WHERE i.indrelid = to_regclass(quote_ident(?)) AND i.indisprimary
     ORDER BY array_position(i.indkey::int2[], a.attnum)`,
    [name],
  );
  const keys = await db.all<{ ref: string; col: string }>(
    `SELECT ref.relname AS ref, a.attname AS col FROM pg_constraint c
     JOIN pg_class ref ON ref.oid = c.confrelid
     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
     WHERE c.contype = 'f' AND c.conrelid = to_regclass(quote_ident(?))`,
    [name],
  );
  return shape(
    name,
    columns.map((c) => c.name),
    new Set(columns.filter((c) => c.type === 'boolean').map((c) => c.name)),
    primaryKey.map((c) => c.name),
    keys,
  );
}

function shape(
  name: string,
  columns: string[],
  booleans: Set<string>,
  primaryKey: string[],
  keys: { ref: string; col: string }[],
): TableShape {
  return {
    name,
    columns,
    booleans,
    primaryKey,
    references: [...new Set(keys.filter((k) => k.ref !== name).map((k) => k.ref))],
    selfReferences: keys.filter((k) => k.ref === name).map((k) => k.col),
  };
}

/** Orders tables so that every table comes after the ones it references (the schema has no cycles). */
export function parentsFirst(shapes: TableShape[]): TableShape[] {
  const byName = new Map(shapes.map((s) => [s.name, s]));
  const done = new Set<string>();
  const ordered: TableShape[] = [];
  const visit = (shape: TableShape, path: string[]) => {
    if (done.has(shape.name)) return;
    if (path.includes(shape.name))
      throw new Error(`tables reference each other: ${[...path, shape.name].join(' → ')}`);
    for (const ref of shape.references) {
      const parent = byName.get(ref);
      if (parent) visit(parent, [...path, shape.name]);
    }
    done.add(shape.name);
    ordered.push(shape);
  };
  for (const shape of shapes) visit(shape, []);
  return ordered;
}
