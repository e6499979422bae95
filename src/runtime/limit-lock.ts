/**
 * In-process turns per limit key: the calls of one limit key in this process go one at a time
 * from reading the figures for the policy to their claim (not through their handlers). Without
 * it, N calls of a hot key in one process all read the same figures and all but one are decided
 * again at every claim; with it, a call is decided again only when another process claimed in
 * between. Correctness never depends on it: the store re-checks the figures in the claim.
 */
import type { CallLimit } from "./limit-figures.js";

/** Turn queues by key: the tail of each key's chain. */
export type LimitTurns = Map<string, Promise<void>>;

/** Waits for this call's turn on every key (in key order, so two calls never wait on each other); resolves to the release. */
export async function takeTurns(turns: LimitTurns, tenant: string, limits: readonly CallLimit[]): Promise<() => void> {
  const keys = [...new Set(limits.map((l) => JSON.stringify([tenant, l.name, l.key])))].sort();
  const releases: (() => void)[] = [];
  for (const key of keys) {
    const before = turns.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    turns.set(key, tail);
    releases.push(() => {
      release();
      if (turns.get(key) === tail) turns.delete(key);
    });
    await before;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const r of releases) r();
  };
}
