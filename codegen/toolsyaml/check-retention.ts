/**
 * Semantic checks of a tool's retention against its approval TTL and its claim
 * (timeout + the runtime's default lease margin): a record that expires before its
 * approval, or while its handler may still run, lets one operation id make two effects.
 */
import { defaultLeaseMarginMs } from "../../src/runtime/lease.js";
import type { Diagnostic } from "../diagnostics.js";
import { parseDuration } from "./duration.js";
import type { RawTool, RawToolsFile } from "./raw-types.js";
import { defaults } from "./to-manifest.js";
import type { YamlSource } from "./yaml-source.js";

export function checkRetention(file: RawToolsFile, source: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const name of Object.keys(file.tools).sort()) {
    const tool = file.tools[name] as RawTool;
    const retentionText = tool.idempotency?.retention ?? defaults.retention;
    const retention = parseDuration(retentionText);
    if (retention === null) continue; // reported as invalid_duration by normalisation
    const where = tool.idempotency?.retention === undefined ? ["tools", name, "idempotency"] : ["tools", name, "idempotency", "retention"];
    const at = source.locate(tool.idempotency === undefined ? ["tools", name] : where, { key: tool.idempotency === undefined });
    const shown = tool.idempotency?.retention === undefined ? `the default retention ${retentionText}` : `retention ${retentionText}`;
    const hasApproval = tool.effect !== "read" || tool.approval !== undefined;
    const ttlText = tool.approval?.ttl ?? defaults.approvalTtl;
    const ttl = parseDuration(ttlText);
    if (hasApproval && ttl !== null && retention < ttl) {
      out.push({
        code: "retention_shorter_than_approval_ttl",
        message: `tool "${name}": ${shown} is shorter than approval.ttl ${ttlText}; once the record expires, the still-valid approval authorises the same operation id again`,
        location: at,
        hint: `set idempotency.retention to at least ${ttlText} (or shorten approval.ttl)`,
      });
    }
    const timeout = tool.timeout_ms ?? defaults.timeoutMs;
    if (retention < timeout + defaultLeaseMarginMs) {
      out.push({
        code: "retention_shorter_than_lease",
        message: `tool "${name}": ${shown} is shorter than timeout_ms + lease margin (${timeout} + ${defaultLeaseMarginMs} ms); the record could expire while its handler still runs`,
        location: at,
        hint: `set idempotency.retention to at least ${timeout + defaultLeaseMarginMs}ms`,
      });
    }
  }
  return out;
}
