// The store's statements keep a pool connection checked out until the end of the event-loop
// turn: statements that follow each other within a turn share one checkout, concurrent ones
// use separate connections, every connection goes back to the pool after the turn, and a
// broken connection is never handed out again.
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createPgPool, runPrepared, runPreparedValue } from "../../src/store/postgres/pool.js";
import { pgUrl, skipWithoutPg } from "../helpers/pg-env.js";

const skip = skipWithoutPg("postgres statement runner");

const pidSql = "SELECT pg_backend_pid() AS pid";
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe.skipIf(skip)("postgres statement runner", () => {
  const pools: pg.Pool[] = [];
  const open = (max: number): pg.Pool => {
    const pool = createPgPool({ url: pgUrl!, max, applicationName: "toolgate runner test" });
    pools.push(pool);
    return pool;
  };
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.end();
  });

  it("statements that follow each other within a turn share one checkout and one connection", async () => {
    const pool = open(4);
    let acquired = 0;
    pool.on("acquire", () => acquired++);
    const pids: number[] = [];
    for (let i = 0; i < 3; i++) pids.push((await runPrepared<{ pid: number }>(pool, "t_pid", pidSql, [])).rows[0]!.pid);
    expect(acquired).toBe(1);
    expect(new Set(pids).size).toBe(1);
    expect(pool.idleCount).toBe(0);
    await turn();
    // After the turn the connection is back in the pool.
    expect(pool.idleCount).toBe(1);
    expect(pool.totalCount).toBe(1);
    await runPrepared(pool, "t_pid", pidSql, []);
    expect(acquired).toBe(2);
  });

  it("concurrent statements run on different connections", async () => {
    const pool = open(4);
    const sleepSql = "SELECT pg_backend_pid() AS pid, pg_sleep(0.05) IS NULL AS slept";
    const [a, b] = await Promise.all([
      runPrepared<{ pid: number }>(pool, "t_sleep", sleepSql, []),
      runPrepared<{ pid: number }>(pool, "t_sleep", sleepSql, []),
    ]);
    expect(a.rows[0]!.pid).not.toBe(b.rows[0]!.pid);
    await turn();
    expect(pool.idleCount).toBe(2);
  });

  it("other users of the pool get the connection after the turn", async () => {
    const pool = open(1);
    await runPrepared(pool, "t_pid", pidSql, []);
    const other = pool.query<{ one: number }>("SELECT 1 AS one");
    expect((await other).rows[0]!.one).toBe(1);
    expect(pool.totalCount).toBe(1);
  });

  it("a caller sending statements back to back lets a waiting user of the pool in", async () => {
    const pool = open(1);
    let done = 0;
    const chain = (async () => {
      for (let i = 0; i < 30; i++) {
        await runPrepared(pool, "t_pid", pidSql, []);
        done++;
      }
    })();
    await new Promise((r) => setImmediate(r));
    const other = pool.query("SELECT 1 AS one").then(() => done);
    const servedAfter = await other;
    await chain;
    expect(servedAfter).toBeLessThan(5);
  });

  it("a failing statement's connection is closed, and the next statement gets a working one", async () => {
    const pool = open(2);
    const before = (await runPrepared<{ pid: number }>(pool, "t_pid", pidSql, [])).rows[0]!.pid;
    await expect(runPrepared(pool, "t_fail", "SELECT 1 / $1::int AS x", [0])).rejects.toThrow(/division by zero/);
    const after = (await runPrepared<{ pid: number }>(pool, "t_pid", pidSql, [])).rows[0]!.pid;
    expect(after).not.toBe(before);
    await turn();
    expect(pool.totalCount).toBe(1);
  });

  it("a kept connection that reports an error is dropped, not handed out again", async () => {
    const pool = open(2);
    const seen: pg.PoolClient[] = [];
    pool.on("acquire", (c) => seen.push(c));
    const pid = (await runPrepared<{ pid: number }>(pool, "t_pid", pidSql, [])).rows[0]!.pid;
    // Still the same turn: the connection is kept, idle between statements, when it fails.
    seen[0]!.emit("error", new Error("connection lost"));
    const next = (await runPrepared<{ pid: number }>(pool, "t_pid", pidSql, [])).rows[0]!.pid;
    expect(next).not.toBe(pid);
    expect(seen).toHaveLength(2);
  });

  it("a connection the server ended between turns is replaced", async () => {
    const pool = open(2);
    const killer = new pg.Client({ connectionString: pgUrl! });
    await killer.connect();
    try {
      const pid = (await runPrepared<{ pid: number }>(pool, "t_pid", pidSql, [])).rows[0]!.pid;
      await killer.query("SELECT pg_terminate_backend($1)", [pid]);
      await new Promise((r) => setTimeout(r, 50));
      const next = (await runPrepared<{ pid: number }>(pool, "t_pid", pidSql, [])).rows[0]!.pid;
      expect(next).not.toBe(pid);
    } finally {
      await killer.end();
    }
  });

  it("a one-value statement answers its first column, or undefined without a row", async () => {
    const pool = open(1);
    expect(await runPreparedValue<number[]>(pool, "t_value", "SELECT json_build_array($1::int, 2) AS v", [1])).toEqual([1, 2]);
    expect(await runPreparedValue(pool, "t_none", "SELECT 1 AS v WHERE $1::boolean", [false])).toBeUndefined();
  });

  it("ending the pool right after statements completes", async () => {
    const pool = new pg.Pool({ connectionString: pgUrl!, max: 2 });
    await runPrepared(pool, "t_pid", pidSql, []);
    await pool.end();
    expect(pool.totalCount).toBe(0);
  });
});
