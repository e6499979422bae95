import { createNoopMeter } from "@opentelemetry/api";
import type { Meter } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { Telemetry } from "../../src/runtime/telemetry.js";

/** A meter that counts what is recorded into its instruments. */
function countingMeter(): { meter: Meter; recorded: string[] } {
  const recorded: string[] = [];
  const noop = createNoopMeter();
  const instrument = (name: string) => ({ add: () => void recorded.push(name), record: () => void recorded.push(name) });
  const meter = {
    ...noop,
    createCounter: (name: string) => instrument(name),
    createHistogram: (name: string) => instrument(name),
    createUpDownCounter: (name: string) => instrument(name),
  } as unknown as Meter;
  return { meter, recorded };
}

const summary = {
  tool: "get_account", effect: "read", operation_id: null, decision_id: "d1", decision: "allow", reason: "read_allowed",
  outcome: "success", outcome_reason: null, policy_version: "v1", eval_ns: 100, shadow_disagrees: null,
};

describe("telemetry without a tracer or meter", () => {
  it("runs a phase as is when nothing observes the call (no wrapper promise, no clock reads)", async () => {
    const call = new Telemetry({}).startCall("get_account", undefined);
    expect(call.inert).toBe(true);
    const work = Promise.resolve(42);
    expect(call.phase("prepare", () => work)).toBe(work);
    expect(await work).toBe(42);
    call.end(null);
  });

  it("still measures every phase and call when a meter is installed", async () => {
    const { meter, recorded } = countingMeter();
    const call = new Telemetry({ meter }).startCall("get_account", undefined);
    expect(call.inert).toBe(false);
    expect(await call.phase("authorize", () => Promise.resolve(1))).toBe(1);
    expect(() => call.end(null)).toThrow(/summary is needed/);
    call.end(summary);
    expect(recorded).toEqual(["toolgate.phase.duration", "toolgate.decisions", "toolgate.call.duration"]);
  });
});
