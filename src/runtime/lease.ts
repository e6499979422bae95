/**
 * Lease arithmetic shared by the runtime and the tools.yaml loader: a claim is held
 * for the tool's timeout plus a margin, and an idempotency record must outlive both
 * the claim and any approval that can authorise the operation, or one operation id
 * could produce a second effect.
 */
import type { ToolManifestEntry } from "../manifest.js";

/** Lease length beyond the tool's timeout, so a live handler is never taken over. */
export const defaultLeaseMarginMs = 5_000;

/** Why `tool`'s retention is too short for the runtime to keep exactly-once; empty when it is fine. */
export function retentionProblems(tool: Pick<ToolManifestEntry, "retention_ms" | "timeout_ms" | "approval">, leaseMarginMs: number): string[] {
  const out: string[] = [];
  if (tool.approval !== null && tool.retention_ms < tool.approval.ttl_ms) {
    out.push(`retention (${tool.retention_ms} ms) is shorter than approval.ttl (${tool.approval.ttl_ms} ms): an approval would outlive the record and authorise the same operation again`);
  }
  if (tool.retention_ms < tool.timeout_ms + leaseMarginMs) {
    out.push(`retention (${tool.retention_ms} ms) is shorter than timeout_ms + lease margin (${tool.timeout_ms} + ${leaseMarginMs} ms): the record could expire while its handler still runs`);
  }
  return out;
}
