import { describe, expect, it } from "vitest";
import { loggedFigureLines } from "../../src/cli/logged-figures.js";

describe("explain shows the history a logged decision was made on", () => {
  it("names each limit's recorded figures and the run's earlier calls", () => {
    const lines = loggedFigureLines({
      tool: "confirm_transfer",
      limits: { payouts_per_currency: { count: 2, sum: 1500 } },
      run: [{ tool: "get_account", effect: "read", sensitive: true, outcome: "success", at_ms: 1 }],
    });
    expect(lines).toEqual([
      "limits     payouts_per_currency: count 2, sum 1500 (the window before this call, as the policy saw it)",
      "run        1 earlier call(s) of the run: get_account (read, sensitive, success)",
    ]);
  });

  it("shows nothing for an input without limits or run", () => {
    expect(loggedFigureLines({ tool: "get_account" })).toEqual([]);
    expect(loggedFigureLines(null)).toEqual([]);
  });
});
