/**
 * MCP over stdio: the SDK's `serveStdio` picks the era from the opening exchange (2026-07-28
 * `server/discover`, or a 2025 `initialize`) and pins one server instance per connection. A
 * line that is not JSON is answered with a JSON-RPC parse error (the SDK's transport would
 * drop it silently), so a client learns its message was lost.
 */
import { randomBytes } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
import { Transform } from "node:stream";
import type { Readable, TransformCallback, Writable } from "node:stream";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Runtime } from "../runtime/runtime.js";
import { createMcpServer } from "./server.js";
import type { McpServerOptions } from "./server.js";

export interface McpStdioOptions extends Omit<McpServerOptions, "era"> {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Longest line accepted, in bytes. Default 10 MiB. */
  readonly maxLineBytes?: number;
}

export interface McpStdioHandle {
  /** Resolves when the client closed its end (stdin ended) or close() was called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

const errorLine = (code: number, message: string): string => `${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } })}\n`;

/** Passes complete JSON lines on; answers a line that is not JSON (or too long) on `reply`. */
export class JsonLineGuard extends Transform {
  private pending = "";
  private skipping = false;
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    private readonly reply: (line: string) => void,
    private readonly maxLineBytes: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pending += typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    let nl: number;
    while ((nl = this.pending.indexOf("\n")) !== -1) {
      const line = this.pending.slice(0, nl);
      this.pending = this.pending.slice(nl + 1);
      if (this.skipping) this.skipping = false;
      else this.line(line);
    }
    if (Buffer.byteLength(this.pending) > this.maxLineBytes) {
      this.pending = "";
      if (!this.skipping) this.reply(errorLine(-32700, `parse error: a line longer than ${this.maxLineBytes} bytes was dropped`));
      this.skipping = true;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    this.pending += this.decoder.end();
    if (!this.skipping && this.pending.trim() !== "") this.line(this.pending);
    done();
  }

  private line(raw: string): void {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "") return;
    try {
      JSON.parse(line);
    } catch {
      this.reply(errorLine(-32700, "parse error: the line is not JSON (one JSON-RPC message per line)"));
      return;
    }
    this.push(`${line}\n`);
  }
}

export function serveMcpStdio(runtime: Runtime, options: McpStdioOptions): McpStdioHandle {
  const { stdin = process.stdin, stdout = process.stdout, maxLineBytes = 10 * 1024 * 1024, ...serverOptions } = options;
  // One process serves every round of an approval flow on stdio: a per-process key suffices.
  const requestStateKey = serverOptions.requestStateKey ?? randomBytes(32);
  const guard = new JsonLineGuard((line) => void stdout.write(line), maxLineBytes);
  stdin.pipe(guard);
  const closed = new Promise<void>((done) => {
    guard.once("end", () => done());
    guard.once("close", () => done());
  });
  const handle = serveStdio(({ era }) => createMcpServer(runtime, { ...serverOptions, era, requestStateKey }), {
    transport: new StdioServerTransport(guard, stdout),
  });
  return {
    closed,
    async close() {
      stdin.unpipe(guard);
      guard.end();
      await handle.close();
    },
  };
}
