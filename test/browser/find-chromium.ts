/**
 * Finds the system Chromium (Debian's `chromium` package) for the browser tests. Without
 * one the tests skip with a message, unless the environment requires a browser
 * (TOOLGATE_REQUIRE_BROWSER=1 or CI set), where they fail instead.
 */
import { existsSync } from "node:fs";

const candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium", "/usr/bin/google-chrome"];

export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  const explicit = env["TOOLGATE_CHROMIUM"];
  if (explicit !== undefined && explicit !== "") return existsSync(explicit) ? explicit : null;
  return candidates.find((c) => existsSync(c)) ?? null;
}

export const browserRequired = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env["TOOLGATE_REQUIRE_BROWSER"] === "1" || (env["CI"] !== undefined && env["CI"] !== "" && env["CI"] !== "false");

/** The flags the browser tests launch Chromium with (no sandbox: containers; nothing that phones home). */
export const chromiumArgs = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
