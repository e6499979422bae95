import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, it } from "vitest";
import type { Store } from "../../src/store/store.js";
import {
  approvalThenRetryCommitsOnce,
  deniedCallsAreErrors,
  listsToolsForThePrincipal,
  readCallSucceeds,
  writeNeedsOperationId,
} from "./conversation.js";
import type { Conversation } from "./conversation.js";
import { approveAsBob, makeTestGate, storeSite } from "./fixture.js";
import type { StoreSite, TestGate } from "./fixture.js";
import { describeEachStore } from "../helpers/stores.js";

const INBOX = "http://127.0.0.1:7070";

/** `toolgate mcp --stdio --demo` as a host launches it, with the principal on its command line. */
const eras = ["2025-11-25", "2026-07-28"] as const;
type Era = (typeof eras)[number];

async function launch(site: StoreSite, principal: { user: string; roles: string }, era: Era): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["bin/toolgate.js", "mcp", "--stdio", "--demo", "--db", site.db, "--tenant", "t_acme", "--user", principal.user, "--roles", principal.roles, "--approval-link", INBOX],
    env: { PATH: process.env["PATH"] ?? "", ...site.env },
    stderr: "pipe",
  });
  const client = new Client({ name: "toolgate-test", version: "1.0.0" }, era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {});
  await client.connect(transport);
  return client;
}

for (const era of eras) {
  describeEachStore(`MCP over stdio, SDK client launching toolgate mcp, spec ${era}`, (stores) => {
    const kind = stores.name;
    let site: StoreSite;
    let store: Store;
    let approver: TestGate;
    let c: Conversation;

    beforeAll(async () => {
      site = await storeSite(kind);
      // One after the other: two processes creating a fresh SQLite file at the same moment can meet SQLITE_BUSY.
      const client = await launch(site, { user: "alice", roles: "agent" }, era);
      const viewerClient = await launch(site, { user: "vera", roles: "viewer" }, era);
      // The approver works in another process over the same store, as the inbox would.
      store = await site.open();
      approver = await makeTestGate(store);
      c = { client, viewerClient, approve: (id) => approveAsBob(approver.runtime, id), approvalLinkBase: INBOX };
    }, 120_000);
    afterAll(async () => {
      await c?.client.close();
      await c?.viewerClient.close();
      await store?.close();
      await site?.drop();
    }, 30_000);

    it("lists the tools the policy permits the launching host's principal, with true annotations and the manifest's schemas", () =>
      listsToolsForThePrincipal(c));
    it("answers a read with the success envelope as structured content and text", () => readCallSucceeds(c));
    it("never mints an operation id: a write without one is invalid_arguments", () => writeNeedsOperationId(c));
    it("approval_required -> approve elsewhere -> the retry commits once; replay; conflict", () => approvalThenRetryCommitsOnce(c, `op-stdio-${kind}-${era}`));
    it("denials are isError results with the envelope", () => deniedCallsAreErrors(c));
  });
}
