/**
 * Hot reload: watches a policy.wasm or bundle file and swaps the runtime's policy
 * when it changes, only after the new file loaded; a file that does not load
 * (half-written, corrupt, missing the entrypoint) is reported and the old policy
 * stays. Enters: a path and a setPolicy target. Leaves: reload events.
 */
import { watch } from "node:fs";
import type { FSWatcher } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { PolicyEngine } from "../policy/engine.js";
import { loadPolicyFile } from "../policy/policy-file.js";
import type { PolicyFileOptions } from "../policy/policy-file.js";

export interface WatchPolicyOptions extends PolicyFileOptions {
  /** Changes within this many ms are reloaded once (writers often touch a file several times). Default 50. */
  readonly debounceMs?: number;
  /** After a successful swap. */
  readonly onReload?: (event: { readonly path: string; readonly previous: string; readonly version: string }) => void;
  /** After a failed load; the previous policy stays in force. Default: stderr. */
  readonly onError?: (err: unknown) => void;
}

export type ReloadResult =
  | { readonly swapped: true; readonly version: string }
  | { readonly swapped: false; readonly why: "unchanged"; readonly version: string }
  | { readonly swapped: false; readonly why: "load_failed"; readonly error: unknown };

export interface PolicyWatcher {
  /** Loads the file now and swaps when it loads and differs. */
  reload(): Promise<ReloadResult>;
  close(): void;
}

export interface PolicyTarget {
  readonly policyVersion: string;
  setPolicy(engine: PolicyEngine): void;
}

export function watchPolicyFile(target: PolicyTarget, path: string, opts: WatchPolicyOptions): PolicyWatcher {
  const file = resolve(path);
  const onError =
    opts.onError ?? ((err: unknown) => void process.stderr.write(`toolgate watchPolicy: ${file}: ${err instanceof Error ? err.message : String(err)}; keeping policy ${target.policyVersion}\n`));
  // Reloads run one at a time, so the last change always wins.
  let chain: Promise<unknown> = Promise.resolve();
  const reload = (): Promise<ReloadResult> => {
    const next = chain.then(async (): Promise<ReloadResult> => {
      let engine: PolicyEngine;
      try {
        engine = await loadPolicyFile(file, opts);
      } catch (error) {
        onError(error);
        return { swapped: false, why: "load_failed", error };
      }
      const previous = target.policyVersion;
      if (engine.version === previous) return { swapped: false, why: "unchanged", version: previous };
      target.setPolicy(engine);
      opts.onReload?.({ path: file, previous, version: engine.version });
      return { swapped: true, version: engine.version };
    });
    chain = next;
    return next;
  };
  let timer: NodeJS.Timeout | null = null;
  // The directory is watched, not the file: builds replace files by rename, which ends a file watch.
  let watcher: FSWatcher | null = watch(dirname(file), (_event, name) => {
    if (name !== null && name.toString() !== basename(file)) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void reload();
    }, opts.debounceMs ?? 50);
  });
  watcher.on("error", onError);
  return {
    reload,
    close() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      watcher?.close();
      watcher = null;
    },
  };
}
