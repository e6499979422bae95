/**
 * What the executable prints for an error no command handled: an environment problem the
 * user can fix (a native module built for another Node.js, an optional peer dependency a
 * command needs and the project did not install) with the fix and exit 1, anything else
 * as a bug with its stack and exit 70.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "./package-root.js";

export interface FatalReport {
  readonly message: string;
  readonly exitCode: 1 | 70;
}

const abiMismatch = /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/;
const nativeModule = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/][^'"\n]*\.node/;

/** A native addon compiled for another Node.js ABI (Node's ERR_DLOPEN_FAILED with NODE_MODULE_VERSION). */
export function nativeModuleMismatch(err: unknown): { readonly module: string; readonly builtFor: string; readonly needs: string } | null {
  if (!(err instanceof Error)) return null;
  const abi = abiMismatch.exec(err.message);
  if (abi === null) return null;
  const module = nativeModule.exec(err.message)?.[1]?.replace(/\\/g, "/") ?? "better-sqlite3";
  return { module, builtFor: abi[1] as string, needs: abi[2] as string };
}

const missingPackage = /Cannot find (?:package|module) '((?:@[^/']+\/)?[^/']+)[^']*'/;

/** The optional peer dependencies of toolgate's package.json: MCP, the inbox server, the agent frameworks. */
export function optionalPeers(root: string = packageRoot()): ReadonlySet<string> {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { peerDependenciesMeta?: Record<string, { optional?: boolean }> };
  return new Set(Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional === true).map(([name]) => name));
}

/** An optional peer dependency that is not installed (Node's ERR_MODULE_NOT_FOUND naming one). */
export function missingOptionalPeer(err: unknown, peers: () => ReadonlySet<string>): string | null {
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== "ERR_MODULE_NOT_FOUND") return null;
  const name = missingPackage.exec(err.message)?.[1];
  if (name === undefined) return null;
  try {
    return peers().has(name) ? name : null;
  } catch {
    // No readable package.json: report the error as it is.
    return null;
  }
}

export function reportFatal(err: unknown, nodeVersion = process.version, peers: () => ReadonlySet<string> = optionalPeers): FatalReport {
  const peer = missingOptionalPeer(err, peers);
  if (peer !== null) {
    return {
      exitCode: 1,
      message:
        `toolgate: environment problem: this command needs ${peer}, an optional peer dependency of toolgate that is not installed.\n` +
        `  fix: npm install ${peer} (toolgate's README lists the optional peers under "Two packages")`,
    };
  }
  const mismatch = nativeModuleMismatch(err);
  if (mismatch !== null) {
    return {
      exitCode: 1,
      message:
        `toolgate: environment problem: the native module ${mismatch.module} was built for another Node.js ` +
        `(NODE_MODULE_VERSION ${mismatch.builtFor}; Node.js ${nodeVersion} needs ${mismatch.needs}).\n` +
        `  fix: run \`npm rebuild ${mismatch.module}\` with the Node.js that runs toolgate (or switch back to the Node.js it was installed with)`,
    };
  }
  return { exitCode: 70, message: `toolgate: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}` };
}
