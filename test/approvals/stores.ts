/** The stores the approvals tests run on: SQLite in memory, and PostgreSQL when TOOLGATE_PG_URL is set. */
import { openSqliteStore } from "../../src/store/index.js";
import { openPgStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/store.js";
import { createTestSchema, skipWithoutPg } from "../workers/pg-env.js";
import type { TestSchema } from "../workers/pg-env.js";

export interface ApprovalStores {
  readonly name: string;
  readonly skip: boolean;
  /** An empty store. */
  fresh(): Promise<Store>;
  dispose(): Promise<void>;
}

/** Closes every store in `opened` (their queued decision-log entries are written) and empties it. */
const closeAll = async (opened: Store[]): Promise<void> => void (await Promise.all(opened.splice(0).map((s) => s.close())));

export function approvalStores(suite: string): ApprovalStores[] {
  const sqlite: Store[] = [];
  let schema: TestSchema | null = null;
  // Stores opened on the schema's pool: closed before the tables are emptied or dropped, so no
  // batch write races the TRUNCATE or the DROP.
  const pgStores: Store[] = [];
  return [
    {
      name: "sqlite",
      skip: false,
      async fresh() {
        const s = openSqliteStore(":memory:");
        sqlite.push(s);
        return s;
      },
      async dispose() {
        await closeAll(sqlite);
      },
    },
    {
      name: "postgres",
      skip: skipWithoutPg(suite),
      async fresh() {
        schema ??= await createTestSchema();
        await closeAll(pgStores);
        const tables = await schema.pool.query<{ tablename: string }>(
          "SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'",
          [schema.schema],
        );
        await schema.pool.query(`TRUNCATE ${tables.rows.map((r) => `"${r.tablename}"`).join(", ")} RESTART IDENTITY CASCADE`);
        const s = await openPgStore({ pool: schema.pool });
        pgStores.push(s);
        return s;
      },
      async dispose() {
        await closeAll(pgStores);
        await schema?.drop();
        schema = null;
      },
    },
  ];
}
