/**
 * A named prepared statement answering at most one row of ONE json column, sent as a `pg`
 * submittable: the message bytes (Parse the first time on a connection, then Bind, Execute,
 * Sync) are built in one buffer and written with one socket write, and the answer is the
 * JSON.parse of the column's text. Unlike the driver's own query object it sends no
 * Describe, so the server sends no row description and the driver builds no field parsers,
 * result object or row for it: the write path's statements each answer one json value
 * built in SQL, and per statement that work was most of the driver's CPU.
 *
 * Enters: a statement name unique per SQL text, the text, and parameters (string, number,
 * bigint, boolean or null; each sent as text, as the driver sends them). Leaves, through
 * `callback`: the parsed value, undefined when there was no row, null for an SQL NULL; or
 * the server's error, or a TypeError for a parameter of another type (nothing is sent then).
 */
import type pg from "pg";

/** The driver's per-connection bookkeeping of named statements (pg/lib/connection.js). */
interface WireConnection {
  readonly stream: { readonly writable: boolean; write(chunk: Buffer): boolean };
  readonly parsedStatements: Record<string, string | undefined>;
  readonly submittedNamedStatements: Record<string, string | undefined>;
}

export class JsonValueStatement<V> implements pg.Submittable {
  readonly name: string;
  readonly text: string;
  /** Set by the caller before the statement is queued; called exactly once. */
  callback: ((err: Error | null, value: V | undefined) => void) | undefined;
  readonly #values: readonly unknown[];
  /** The column's text: undefined until a data row arrives, null for SQL NULL. */
  #raw: string | null | undefined = undefined;
  #done = false;

  constructor(name: string, text: string, values: readonly unknown[]) {
    this.name = name;
    this.text = text;
    this.#values = values;
  }

  /** Called by the client when the connection is free; an Error returned is handed to handleError. */
  submit(connection: pg.Connection): Error | null {
    const con = connection as unknown as WireConnection;
    const known = con.parsedStatements[this.name] ?? con.submittedNamedStatements[this.name];
    if (known !== undefined && known !== this.text) {
      return new Error(`Prepared statements must be unique - '${this.name}' was used for a different statement`);
    }
    let bytes: Buffer;
    try {
      bytes = bindExecuteSync(this.name, this.#values, known === undefined ? this.text : null);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
    if (known === undefined) con.submittedNamedStatements[this.name] = this.text;
    if (con.stream.writable) con.stream.write(bytes);
    return null;
  }

  handleDataRow(msg: { readonly fields: readonly (string | null)[] }): void {
    if (this.#raw === undefined) this.#raw = msg.fields[0] ?? null;
  }

  handleReadyForQuery(): void {
    let value: V | undefined;
    try {
      value = this.#raw === undefined ? undefined : this.#raw === null ? (null as V) : (JSON.parse(this.#raw) as V);
    } catch (err) {
      this.#finish(err instanceof Error ? err : new Error(String(err)), undefined);
      return;
    }
    this.#finish(null, value);
  }

  handleError(err: Error): void {
    this.#finish(err, undefined);
  }

  // Messages this statement never causes (no Describe, no COPY, no row limit); the
  // client calls these names, so they exist and ignore what they get.
  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}

  #finish(err: Error | null, value: V | undefined): void {
    if (this.#done) return;
    this.#done = true;
    this.callback?.(err, value);
  }
}

function paramText(value: unknown, index: number): string | null {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "bigint":
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
      return null;
    default:
      if (value === null) return null;
      throw new TypeError(`statement parameter $${index + 1} is a ${typeof value}: only text, numbers, booleans and null are sent`);
  }
}

/**
 * The protocol messages of one execution: Parse (when `parseText` is given), Bind with
 * every parameter and the result in text format, Execute of the unnamed portal, Sync.
 */
function bindExecuteSync(name: string, values: readonly unknown[], parseText: string | null): Buffer {
  const texts = values.map(paramText);
  const nameLen = Buffer.byteLength(name);
  const parseLen = parseText === null ? 0 : 1 + 4 + nameLen + 1 + Buffer.byteLength(parseText) + 1 + 2;
  let bindBody = 1 + nameLen + 1 + 2 + 2 + 2;
  const lens = texts.map((t) => (t === null ? -1 : Buffer.byteLength(t)));
  for (const n of lens) bindBody += 4 + Math.max(0, n);
  const total = parseLen + 1 + 4 + bindBody + 10 + 5;
  const buf = Buffer.allocUnsafe(total);
  let at = 0;
  if (parseText !== null) {
    buf[at++] = 0x50; // 'P'
    at = buf.writeInt32BE(parseLen - 1, at);
    at += buf.write(name, at);
    buf[at++] = 0;
    at += buf.write(parseText, at);
    buf[at++] = 0;
    at = buf.writeInt16BE(0, at); // parameter types: all inferred
  }
  buf[at++] = 0x42; // 'B'
  at = buf.writeInt32BE(4 + bindBody, at);
  buf[at++] = 0; // unnamed portal
  at += buf.write(name, at);
  buf[at++] = 0;
  at = buf.writeInt16BE(0, at); // parameter formats: all text
  at = buf.writeInt16BE(texts.length, at);
  for (let i = 0; i < texts.length; i++) {
    at = buf.writeInt32BE(lens[i]!, at);
    if (lens[i]! > 0) at += buf.write(texts[i]!, at);
  }
  at = buf.writeInt16BE(0, at); // result formats: all text
  buf[at++] = 0x45; // 'E'
  at = buf.writeInt32BE(9, at);
  buf[at++] = 0; // unnamed portal
  at = buf.writeInt32BE(0, at); // all rows
  buf[at++] = 0x53; // 'S'
  at = buf.writeInt32BE(4, at);
  if (at !== total) throw new Error(`statement ${name}: built ${at} of ${total} bytes`);
  return buf;
}
