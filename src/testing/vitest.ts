/**
 * `toolgate/vitest`: the policy matchers on vitest's `expect`, types included.
 *
 *   import "toolgate/vitest";
 *   expect(decide(input)).toRequireApproval();
 *
 * Kept apart from `toolgate/testing` so that importing the test helpers needs no vitest.
 */
import { expect } from "vitest";
import { policyMatchers } from "./policy-expect.js";

export { policyMatchers };

/** The matchers `toolgate/vitest` adds to `expect(...)`. */
export interface PolicyMatchers<R = unknown> {
  toAllow(): R;
  toDeny(reason?: string): R;
  toRequireApproval(): R;
}

declare module "vitest" {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- vitest's own declaration uses this default
  interface Matchers<T = any> extends PolicyMatchers<T> {}
}

expect.extend(policyMatchers);
