/** The MCP conversation every transport must get right, through the SDK's own client. */
import type { Client } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { expect } from "vitest";
import { manifest } from "../../generated/index.js";
import { reserveArgs } from "./fixture.js";

export interface Conversation {
  /** A client connected as alice (roles: agent). */
  readonly client: Client;
  /** A client connected as a viewer of the same tenant (roles: viewer). */
  readonly viewerClient: Client;
  /** Decides as an authenticated approver, outside the MCP connection. */
  readonly approve: (approvalId: string) => Promise<void>;
  /** How many times the effect of an operation was applied, where the test can see the handlers. */
  readonly effectsOf?: (operationId: string) => number;
  readonly approvalLinkBase?: string;
}

type Structured = Record<string, unknown>;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; env: Structured }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const env = result.structuredContent as Structured;
  // The text rendering is the same envelope, for clients that show only text.
  const first = result.content[0];
  expect(first?.type).toBe("text");
  expect(JSON.parse(first?.type === "text" ? first.text : "null")).toEqual(env);
  return { result, env };
}

export async function listsToolsForThePrincipal(c: Conversation): Promise<void> {
  const { tools } = await c.client.listTools();
  const names = tools.map((t) => t.name);
  const expected = Object.keys(manifest.tools).filter((n) => manifest.tools[n]?.effect !== "destructive").sort();
  expect(names).toEqual(expected);
  expect(names).not.toContain("close_account");

  const byName = new Map(tools.map((t) => [t.name, t]));
  expect(byName.get("get_account")?.annotations).toEqual({ readOnlyHint: true });
  expect(byName.get("reserve_funds")?.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
  expect(byName.get("confirm_transfer")?.annotations).toEqual({ readOnlyHint: false, openWorldHint: true, idempotentHint: true });
  const reserve = byName.get("reserve_funds");
  expect(reserve?.description).toBe(manifest.tools.reserve_funds?.description);
  expect(reserve?.inputSchema.required).toEqual([...((manifest.tools.reserve_funds?.input_schema["required"] as string[]) ?? []), "operation_id"]);
  expect((reserve?.inputSchema.properties?.["operation_id"] as { description?: string }).description).toContain("reuse the same value when retrying this call");
  expect(byName.get("get_account")?.inputSchema.properties?.["operation_id"]).toBeUndefined();
  expect(byName.get("get_account")?.inputSchema.properties).toEqual(manifest.tools.get_account?.input_schema["properties"]);

  // Outside the agent role only reads are permitted: writes are not offered.
  const viewerTools = (await c.viewerClient.listTools()).tools.map((t) => t.name);
  expect(viewerTools).toEqual(expected.filter((n) => manifest.tools[n]?.effect === "read"));
}

export async function readCallSucceeds(c: Conversation): Promise<void> {
  const { result, env } = await call(c.client, "get_account", { account_id: "acc_alice" });
  expect(result.isError).not.toBe(true);
  expect(env).toMatchObject({ outcome: "success", value: { account_id: "acc_alice", currency: "EUR" }, replayed: false });
}

export async function writeNeedsOperationId(c: Conversation): Promise<void> {
  const { result, env } = await call(c.client, "reserve_funds", reserveArgs);
  expect(result.isError).toBe(true);
  expect(env).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments" });
  expect(String(env["message"])).toContain("operation_id");
}

export async function approvalThenRetryCommitsOnce(c: Conversation, operationId: string): Promise<void> {
  const args = { ...reserveArgs, operation_id: operationId };
  const first = await call(c.client, "reserve_funds", args);
  expect(first.result.isError).toBe(true);
  expect(first.env).toMatchObject({ outcome: "terminal_failure", reason: "approval_required", operation_id: operationId });
  const approvalId = first.env["approval_id"] as string;
  expect(approvalId).toMatch(/^apr_/);
  if (c.approvalLinkBase !== undefined) expect(first.env["approval_url"]).toBe(`${c.approvalLinkBase}/approvals/${approvalId}`);
  expect(c.effectsOf?.(operationId) ?? 0).toBe(0);

  // The client presenting the id of a pending approval approves nothing.
  const early = await call(c.client, "reserve_funds", { ...args, approval_id: approvalId });
  expect(early.env).toMatchObject({ outcome: "terminal_failure", reason: "approval_required" });

  await c.approve(approvalId);
  const committed = await call(c.client, "reserve_funds", { ...args, approval_id: approvalId });
  expect(committed.result.isError).not.toBe(true);
  expect(committed.env).toMatchObject({ outcome: "success", operation_id: operationId, replayed: false, value: { state: "reserved" } });

  // Replay: the same operation again answers the recorded outcome, no second effect.
  const again = await call(c.client, "reserve_funds", { ...args, approval_id: approvalId });
  expect(again.env).toMatchObject({ outcome: "success", replayed: true, resource_id: committed.env["resource_id"] });
  if (c.effectsOf !== undefined) expect(c.effectsOf(operationId)).toBe(1);

  // Conflict: the same operation id with other arguments.
  const conflict = await call(c.client, "reserve_funds", { ...args, amount: 2_000 });
  expect(conflict.result.isError).toBe(true);
  expect(conflict.env).toMatchObject({ outcome: "terminal_failure", reason: "idempotency_conflict" });
}

export async function deniedCallsAreErrors(c: Conversation): Promise<void> {
  // Not listed, still gated: calling it anyway is denied by the policy.
  const destructive = await call(c.client, "close_account", { account_id: "acc_bob", operation_id: "op-close" });
  expect(destructive.result.isError).toBe(true);
  expect(destructive.env).toMatchObject({ outcome: "terminal_failure", reason: "destructive_denied" });
  expect(String(destructive.env["message"])).toContain("destructive_denied");

  const byViewer = await call(c.viewerClient, "reserve_funds", { ...reserveArgs, operation_id: "op-viewer" });
  expect(byViewer.env).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
  expect(String(byViewer.env["message"])).toContain("role_not_permitted");

  // Identity in the arguments is not an input: the schema rejects it, the principal stays the connection's.
  const smuggled = await call(c.client, "get_account", { account_id: "acc_alice", tenant: "t_other" });
  expect(smuggled.env).toMatchObject({ outcome: "terminal_failure", reason: "invalid_arguments" });
}

export async function runConversation(c: Conversation, operationId: string): Promise<void> {
  await listsToolsForThePrincipal(c);
  await readCallSucceeds(c);
  await writeNeedsOperationId(c);
  await approvalThenRetryCommitsOnce(c, operationId);
  await deniedCallsAreErrors(c);
}
