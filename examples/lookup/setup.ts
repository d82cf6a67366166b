/**
 * Creates the two dimension tables of enriched-orders.ts: `users_mysql` in MariaDB/MySQL and
 * `users_pg` in PostgreSQL (names and URLs from the same environment variables the pipeline
 * reads), each with the rows of {@link USERS}. Idempotent: drops and recreates the tables.
 *
 * `npx tsx examples/lookup/setup.ts`
 */
import { pathToFileURL } from 'node:url';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { parseJdbcUrl } from '../../shared/lookup/jdbc-config.ts';

/** The dimension rows, the same in both databases (descriptions differ so a test can tell the joins apart). */
export const USERS: readonly { id: number; name: string; description: string; catalog: string }[] = [
  { id: 1, name: 'ann', description: 'first customer', catalog: 'books' },
  { id: 2, name: 'bob', description: 'likes music', catalog: 'music' },
  { id: 3, name: 'cy', description: 'returns a lot', catalog: 'books' },
  { id: 4, name: 'dee', description: 'new', catalog: 'garden' },
  { id: 5, name: 'eve', description: 'VIP', catalog: 'music' },
];

/** The connection and table settings the pipeline and this script share. */
export const settings = (env: NodeJS.ProcessEnv = process.env) => ({
  mysqlUrl: env.FLAMBDA_EXAMPLE_MYSQL_URL ?? 'jdbc:mysql://127.0.0.1:3306/test?user=root',
  mysqlTable: env.FLAMBDA_EXAMPLE_MYSQL_TABLE ?? 'users_mysql',
  postgresUrl: env.FLAMBDA_EXAMPLE_POSTGRES_URL ?? 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres',
  postgresTable: env.FLAMBDA_EXAMPLE_POSTGRES_TABLE ?? 'users_pg',
});

/** The DDL and inserts of one table; `suffix` marks the rows' names per database (`ann@pg`). */
function statements(table: string, suffix: string): string[] {
  return [
    `DROP TABLE IF EXISTS ${table}`,
    `CREATE TABLE ${table} (id INT PRIMARY KEY, name VARCHAR(40), description VARCHAR(200), catalog VARCHAR(40))`,
    `INSERT INTO ${table} (id, name, description, catalog) VALUES ${USERS.map((u) => `(${u.id}, '${u.name}${suffix}', '${u.description}', '${u.catalog}')`).join(', ')}`,
  ];
}

/** Creates (or recreates) both tables. */
export async function createTables(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const s = settings(env);
  const my = parseJdbcUrl(s.mysqlUrl);
  const mysql = await createConnection({ host: my.host, port: my.port, database: my.database, user: my.params.get('user') ?? 'root' });
  try {
    for (const sql of statements(s.mysqlTable, '@mysql')) await mysql.query(sql);
  } finally {
    await mysql.end();
  }
  const p = parseJdbcUrl(s.postgresUrl);
  const client = new pg.Client({ host: p.host, port: p.port, database: p.database, user: p.params.get('user') ?? 'postgres' });
  await client.connect();
  try {
    for (const sql of statements(s.postgresTable, '@pg')) await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Drops both tables. */
export async function dropTables(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const s = settings(env);
  const my = parseJdbcUrl(s.mysqlUrl);
  const mysql = await createConnection({ host: my.host, port: my.port, database: my.database, user: my.params.get('user') ?? 'root' });
  await mysql.query(`DROP TABLE IF EXISTS ${s.mysqlTable}`).finally(() => mysql.end());
  const p = parseJdbcUrl(s.postgresUrl);
  const client = new pg.Client({ host: p.host, port: p.port, database: p.database, user: p.params.get('user') ?? 'postgres' });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS ${s.postgresTable}`).finally(() => client.end());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await createTables();
  const s = settings();
  console.log(`created ${s.mysqlTable} (${s.mysqlUrl}) and ${s.postgresTable} (${s.postgresUrl})`);
}
