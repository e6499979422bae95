/**
 * The policy's demand of one approval (quorum, roles, signed), read through a per-store cache:
 * a demand is written before its approval and never changes, and an approval created without
 * one never gets one, so an entry (a demand or "none") never goes stale. The runtime that
 * requested or decided an approval knows it already, so the approved call's hot path pays no
 * extra round trip; another process reads it once.
 */
import type { ApprovalRequirement, Store } from "../store/store.js";

const MAX_ENTRIES = 10_000;
const caches = new WeakMap<object, Map<string, ApprovalRequirement | null>>();

function cacheOf(store: object): Map<string, ApprovalRequirement | null> {
  let c = caches.get(store);
  if (c === undefined) caches.set(store, (c = new Map()));
  return c;
}

export function rememberDemand(store: object, approvalId: string, demand: ApprovalRequirement | null): void {
  const c = cacheOf(store);
  if (c.size >= MAX_ENTRIES) c.delete(c.keys().next().value as string);
  c.set(approvalId, demand);
}

/** Call only for an approval that exists (read after it): its absence of a demand is then final. */
export async function demandOf(store: Pick<Store, "getApprovalRequirement">, approvalId: string): Promise<ApprovalRequirement | null> {
  const c = cacheOf(store);
  if (c.has(approvalId)) return c.get(approvalId) ?? null;
  const demand = await store.getApprovalRequirement(approvalId);
  rememberDemand(store, approvalId, demand);
  return demand;
}
