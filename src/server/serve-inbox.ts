/** Starts the inbox app on @hono/node-server; resolves once listening, with its base URL and a close(). */
import { serve } from "@hono/node-server";
import type { Hono } from "hono";

export interface RunningInbox {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export function listenInbox(app: Hono, opts: { readonly port?: number; readonly host?: string } = {}): Promise<RunningInbox> {
  const host = opts.host ?? "127.0.0.1";
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: host }, (info) => {
      const shown = host.includes(":") ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.once("error", reject);
  });
}
