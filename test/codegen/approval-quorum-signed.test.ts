/** tools.yaml `approval.quorum`, `quorum_roles` and `signed` reach the manifest; bad values are located errors. */
import { describe, expect, it } from "vitest";
import { loadToolsSource } from "../../codegen/toolsyaml/index.js";

const tool = (approval: string) => `version: 1
tools:
  reserve_funds:
    description: Hold funds.
    effect: reversible_write
    input:
      type: object
      additionalProperties: false
      properties:
        account_id: { type: string }
    output: { type: object }
    idempotency: { fingerprint: [account_id] }
    approval: ${approval}
`;

describe("tools.yaml approval quorum and signed", () => {
  it("a tool's quorum, quorum roles and signed approvals are in its manifest entry", () => {
    const { loaded, errors } = loadToolsSource(tool("{ quorum: 2, quorum_roles: [treasury], signed: true }"), "tools.yaml");
    expect(errors).toEqual([]);
    expect(loaded?.manifest.tools["reserve_funds"]?.approval).toMatchObject({ quorum: 2, quorum_roles: ["treasury"], signed: true });
  });

  it("a tool without them keeps the manifest it had (no quorum, not signed)", () => {
    const { loaded } = loadToolsSource(tool("{ ttl: 15m }"), "tools.yaml");
    const approval = loaded?.manifest.tools["reserve_funds"]?.approval;
    expect(approval).not.toHaveProperty("quorum");
    expect(approval).not.toHaveProperty("quorum_roles");
    expect(approval).not.toHaveProperty("signed");
  });

  it("a quorum below 1, a non-integer quorum or an empty role list is a located error", () => {
    for (const bad of ["{ quorum: 0 }", "{ quorum: 1.5 }", "{ quorum_roles: [] }", "{ signed: yes-please }"]) {
      const { loaded, errors } = loadToolsSource(tool(bad), "tools.yaml");
      expect(loaded, bad).toBeNull();
      expect(errors[0]?.location.row, bad).toBe(13);
    }
  });
});
