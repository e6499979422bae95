/** The audit chain of a store, for the audit-chain suite. */
import type { ChainSnapshot } from "../../src/store/chain/index.js";
import { isChainSource } from "../../src/store/chain/index.js";
import type { Store } from "../../src/store/store.js";

export async function readChain(store: Store, tenant?: string): Promise<ChainSnapshot> {
  if (!isChainSource(store)) throw new Error("store keeps no audit chain");
  return store.readChain(tenant);
}
