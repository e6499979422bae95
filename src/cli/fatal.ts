/**
 * What the executable prints for an error no command handled: an environment problem the
 * user can fix (a native module built for another Node.js) with the fix and exit 1, anything
 * else as a bug with its stack and exit 70.
 */

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

export function reportFatal(err: unknown, nodeVersion = process.version): FatalReport {
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
