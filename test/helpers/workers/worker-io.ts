/** The worker side of harness.ts: typed messages over the IPC channel. */
import type { FromWorker, ToWorker } from "./harness.js";

const inbox: ToWorker[] = [];
const waiters: Array<{ types: readonly string[]; resolve: (m: ToWorker) => void }> = [];

process.on("message", (raw) => {
  const msg = raw as ToWorker;
  const i = waiters.findIndex((w) => w.types.includes(msg.type));
  if (i >= 0) waiters.splice(i, 1)[0]!.resolve(msg);
  else inbox.push(msg);
});
// The parent going away (test failure, Ctrl-C) must not leave this process behind.
process.on("disconnect", () => process.exit(0));

export function tell(msg: FromWorker): void {
  process.send?.(msg);
}

/** The first message (queued or future) whose type is one of `types`. */
export function nextMessage(...types: string[]): Promise<ToWorker> {
  const i = inbox.findIndex((m) => types.includes(m.type));
  if (i >= 0) return Promise.resolve(inbox.splice(i, 1)[0]!);
  return new Promise((resolve) => waiters.push({ types, resolve }));
}

/** Runs `handle` for every message of `types` until an "exit" message arrives; errors are reported, not swallowed. */
export async function serve(types: readonly string[], handle: (msg: ToWorker) => Promise<void>): Promise<void> {
  for (;;) {
    const msg = await nextMessage(...types, "exit");
    if (msg.type === "exit") return;
    try {
      await handle(msg);
    } catch (err) {
      tell({ type: "error", message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  }
}
