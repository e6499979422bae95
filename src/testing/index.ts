/** `toolgate/testing`: adversarial tool-response fixtures and helpers for tests of gated tools. */
export { countCalls, lostResponse, partialSuccess, silentFailure, slowSuccess, staleSuccess } from "./adversarial.js";
export { fixedClock, manualClock } from "./clock.js";
export type { ManualClock } from "./clock.js";
export { staticPolicy } from "./static-policy.js";
export { isPolicyTestLoadError, loadPolicyForTest, policyMatchers, PolicyTestLoadError } from "./policy-expect.js";
export type { LoadPolicyOptions, PolicyUnderTest } from "./policy-expect.js";
