/**
 * Operation ids are compared by their exact code points, with no Unicode normalization: an
 * NFD spelling of an NFC id (equal-looking) is another operation. The approval of one is never
 * usable by the other, and the other never replays the first one's outcome. On both stores.
 */
import { expect, it } from "vitest";
import { alice, approved, loadShippedPolicy, makeGate, reserveArgs } from "../runtime/harness.js";
import { describeEachStore } from "../helpers/stores.js";

const NFC = "op-caf\u00e9-1";
const NFD = "op-cafe\u0301-1";

describeEachStore("operation ids are exact", (stores) => {
  it("an equal-looking (NFD) spelling of an approved operation id cannot use its approval, and the approved call runs once", async () => {
    expect(NFC.normalize("NFD")).toBe(NFD);
    const gate = makeGate({ policy: await loadShippedPolicy(), store: await stores.fresh() });
    const approvalId = await approved(gate, alice, "reserve_funds", reserveArgs(), NFC);
    const lookalike = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: NFD, approval_id: approvalId });
    expect(lookalike).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied", message: expect.stringContaining("approval_operation_mismatch") });
    expect(gate.ledger.effectsOf(NFD)).toHaveLength(0);
    const real = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: NFC, approval_id: approvalId });
    expect(real).toMatchObject({ outcome: "success", replayed: false });
    expect(gate.ledger.effectsOf(NFC)).toHaveLength(1);
    // The lookalike still never replays the NFC operation's outcome, nor consumes its approval.
    const again = await gate.runtime.call(alice, { tool: "reserve_funds", args: reserveArgs(), operation_id: NFD, approval_id: approvalId });
    expect(again).toMatchObject({ outcome: "terminal_failure", reason: "policy_denied" });
    expect(gate.ledger.effectsOf(NFD)).toHaveLength(0);
    expect(gate.ledger.effects).toHaveLength(1);
  });
});
