/**
 * The host's principal resolver fails: the client gets a fixed text with the spec's code
 * (-32600 unauthorized for a refusal, -32603 for any other failure), never the error's own
 * text, and the host gets the error through onError. Nothing reaches the gate.
 */
import { Client, InMemoryTransport, ProtocolError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { manifest, validators } from "../../generated/index.js";
import { EscrowLedger, escrowHandlers } from "../../src/demo/escrow.js";
import type { TrustedContext } from "../../src/generated-runtime.js";
import { BearerTokenError, createMcpServer } from "../../src/mcp/index.js";
import { INTERNAL_ERROR_TEXT, UNAUTHORIZED_TEXT } from "../../src/mcp/server.js";
import { createRuntime } from "../../src/runtime/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { loadPolicy, reserveArgs } from "./fixture.js";

const SECRET_TEXT = "ldap://10.0.0.5 bind failed for token eyJhbGciOi.secret";

async function serverResolving(principal: () => TrustedContext | Promise<TrustedContext>) {
  const store = openSqliteStore(":memory:");
  const ledger = new EscrowLedger();
  const runtime = createRuntime({ manifest, validators, handlers: escrowHandlers(ledger), policy: await loadPolicy(), store, onError: () => undefined });
  const seen: unknown[] = [];
  const server = createMcpServer(runtime, { principal, onError: (err) => void seen.push(err) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(clientSide);
  return {
    client,
    seen,
    ledger,
    store,
    async close() {
      await client.close();
      await store.close();
    },
  };
}

async function refusal(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ProtocolError);
    return { code: (err as ProtocolError).code, message: (err as Error).message };
  }
  throw new Error("the request succeeded");
}

describe("an error thrown by the host's principal resolver", () => {
  it("reaches the client as -32603 with the fixed internal-error text (never its own), and the host through onError; nothing runs", async () => {
    const thrown = new Error(SECRET_TEXT);
    const s = await serverResolving(async () => {
      throw thrown;
    });
    try {
      for (const answer of [
        await refusal(s.client.callTool({ name: "reserve_funds", arguments: { ...reserveArgs, operation_id: "op-no-principal" } })),
        await refusal(s.client.listTools()),
      ]) {
        expect(answer.code).toBe(-32603);
        expect(answer.message).toContain(INTERNAL_ERROR_TEXT);
        expect(answer.message).not.toContain("10.0.0.5");
        expect(answer.message).not.toContain("secret");
      }
      expect(s.seen).toEqual([thrown, thrown]);
      expect(s.ledger.effectsOf("op-no-principal")).toHaveLength(0);
      expect(await s.store.listDecisions({ tenant: "t_acme" })).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("a refusal (BearerTokenError) reaches the client as -32600 with the fixed unauthorized text, the reason only through onError", async () => {
    const thrown = new BearerTokenError(`token revoked: ${SECRET_TEXT}`);
    const s = await serverResolving(() => {
      throw thrown;
    });
    try {
      const answer = await refusal(s.client.callTool({ name: "get_account", arguments: { account_id: "acc_alice" } }));
      expect(answer.code).toBe(-32600);
      expect(answer.message).toContain(UNAUTHORIZED_TEXT);
      expect(answer.message).not.toContain("revoked");
      expect(answer.message).not.toContain("10.0.0.5");
      expect(s.seen).toEqual([thrown]);
    } finally {
      await s.close();
    }
  });
});
