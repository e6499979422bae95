// runPreparedValue sends its statement as a JsonValueStatement (Parse once per connection,
// then Bind/Execute/Sync without Describe): answers, parameters, errors and the connection's
// state afterwards are the same as through the driver's own query object.
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createPgPool, runPreparedValue } from "../../src/store/postgres/pool.js";
import { pgUrl, skipWithoutPg } from "../helpers/pg-env.js";

const skip = skipWithoutPg("postgres json statement");

describe.skipIf(skip)("postgres json statement", () => {
  const pools: pg.Pool[] = [];
  const open = (max = 1): pg.Pool => {
    const pool = createPgPool({ url: pgUrl!, max, applicationName: "toolgate json statement test" });
    pools.push(pool);
    return pool;
  };
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.end();
  });

  it("answers the parsed json value, null for SQL NULL and undefined without a row", async () => {
    const pool = open();
    const sql = "SELECT json_build_array($1::text, $2::bigint, $3::boolean, $4::text IS NULL) AS v FROM generate_series(1, $5::int)";
    expect(await runPreparedValue(pool, "t_js_one", sql, ["a", 9007199254740991, true, null, 1])).toEqual(["a", 9007199254740991, true, true]);
    // Only the first row counts; a second execution reuses the parsed statement.
    expect(await runPreparedValue(pool, "t_js_one", sql, ["b", -1, false, "x", 3])).toEqual(["b", -1, false, false]);
    expect(await runPreparedValue(pool, "t_js_one", sql, ["c", 0, false, null, 0])).toBeUndefined();
    expect(await runPreparedValue(pool, "t_js_null", "SELECT NULL::json AS v", [])).toBeNull();
    expect(await runPreparedValue(pool, "t_js_jnull", "SELECT 'null'::json AS v", [])).toBeNull();
  });

  it("sends parameters byte-exact as text: multi-byte characters, empty strings, JSON documents", async () => {
    const pool = open();
    const sql = "SELECT json_build_array($1::text, octet_length($1::text), $2::text, $3::jsonb) AS v";
    const text = "zäh €\u{1F600} \"quoted\" \\ \n";
    const doc = { k: ["é", 1.5, null], s: "\u2028" };
    const got = await runPreparedValue<unknown[]>(pool, "t_js_text", sql, [text, "", JSON.stringify(doc)]);
    expect(got).toEqual([text, Buffer.byteLength(text), "", doc]);
  });

  it("sends a lone surrogate as U+FFFD and lets the server refuse a NUL byte, as the driver does; the next statement runs", async () => {
    const pool = open();
    const sql = "SELECT json_build_array($1::text, octet_length($1::text)) AS v";
    expect(await runPreparedValue(pool, "t_js_lone", sql, ["a\uD800b"])).toEqual(["a\uFFFDb", 5]);
    await expect(runPreparedValue(pool, "t_js_lone", sql, ["a\u0000b"])).rejects.toMatchObject({ code: "22021" });
    expect(await runPreparedValue(pool, "t_js_lone", sql, ["ok"])).toEqual(["ok", 2]);
  });

  it("a parameter of another type fails the call without sending it; the connection keeps working", async () => {
    const pool = open();
    await expect(runPreparedValue(pool, "t_js_bad", "SELECT json_build_array($1::text) AS v", [{ a: 1 }])).rejects.toThrow(/parameter \$1/);
    expect(await runPreparedValue(pool, "t_js_bad", "SELECT json_build_array($1::text) AS v", ["ok"])).toEqual(["ok"]);
  });

  it("a server error rejects with the server's error; the next statement runs, its name prepared again if needed", async () => {
    const pool = open();
    await expect(runPreparedValue(pool, "t_js_err", "SELECT json_build_array(1 / $1::int) AS v", [0])).rejects.toMatchObject({ code: "22012" });
    expect(await runPreparedValue(pool, "t_js_err", "SELECT json_build_array(1 / $1::int) AS v", [1])).toEqual([1]);
    // A statement that fails to parse is parsed again next time (and fails again, not "does not exist").
    await expect(runPreparedValue(pool, "t_js_syntax", "SELECT json_build_array(FROM", [])).rejects.toMatchObject({ code: "42601" });
    await expect(runPreparedValue(pool, "t_js_syntax", "SELECT json_build_array(FROM", [])).rejects.toMatchObject({ code: "42601" });
    expect(await runPreparedValue(pool, "t_js_ok", "SELECT json_build_array(2) AS v", [])).toEqual([2]);
  });

  it("refuses one name for two statement texts on one connection", async () => {
    const pool = open();
    expect(await runPreparedValue(pool, "t_js_same", "SELECT json_build_array(1) AS v", [])).toEqual([1]);
    await expect(runPreparedValue(pool, "t_js_same", "SELECT json_build_array(2) AS v", [])).rejects.toThrow(/must be unique/);
  });

  it("sends no Describe: the server answers without a row description, in one socket write per execution", async () => {
    const pool = open();
    const client = await pool.connect();
    const con = (client as unknown as { connection: pg.Connection & { stream: { write: (...a: unknown[]) => boolean } } }).connection;
    client.release();
    let descriptions = 0;
    con.on("rowDescription", () => descriptions++);
    const write = con.stream.write.bind(con.stream);
    let writes = 0;
    con.stream.write = (...a: unknown[]) => {
      writes++;
      return write(...a);
    };
    const sql = "SELECT json_build_array($1::text) AS v";
    expect(await runPreparedValue(pool, "t_js_nodesc", sql, ["a"])).toEqual(["a"]);
    expect(await runPreparedValue(pool, "t_js_nodesc", sql, ["b"])).toEqual(["b"]);
    expect(descriptions).toBe(0);
    expect(writes).toBe(2);
  });

  it("works next to the driver's own queries on the same connection", async () => {
    const pool = open();
    const pid = await runPreparedValue<number>(pool, "t_js_pid", "SELECT to_json(pg_backend_pid()) AS v", []);
    const other = await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    expect(other.rows[0]!.pid).toBe(pid);
    expect(await runPreparedValue<number>(pool, "t_js_pid", "SELECT to_json(pg_backend_pid()) AS v", [])).toBe(pid);
  });
});
