/**
 * Tests over OPA's conformance cases run only when the cases are present
 * ($TOOLGATE_CONFORMANCE_DIR, default ../shared/conformance/opa-v1); otherwise they
 * are reported as skipped with one line saying how to enable them.
 */
import { describe, it } from "vitest";
import { conformanceDirMissing } from "./conformance-dir.js";

/** Null when the cases are readable, else the reason they are not. */
export const conformanceMissing: string | null = conformanceDirMissing();

let announced = false;
function announce(reason: string): void {
  if (announced) return;
  announced = true;
  console.warn(`skipping conformance tests: ${reason}`);
}

/**
 * `describe` whose body reads the conformance cases: with the cases missing the body
 * never runs (it would fail to read them) and one skipped test names the reason.
 */
export function describeConformance(name: string, body: () => void): void {
  if (conformanceMissing === null) {
    describe(name, body);
    return;
  }
  announce(conformanceMissing);
  describe.skip(name, () => {
    it.skip(conformanceMissing, () => undefined);
  });
}

/** `it` that reads the conformance cases; skipped with the reason when they are missing. */
export function itConformance(name: string, fn: () => void | Promise<void>, timeout?: number): void {
  if (conformanceMissing === null) {
    it(name, fn, timeout);
    return;
  }
  announce(conformanceMissing);
  it.skip(`${name} (${conformanceMissing})`, fn);
}
