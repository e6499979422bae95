/**
 * `@simplewebauthn/server`, an optional peer dependency: loaded on the first passkey
 * registration or signature check, so a runtime without signed approvals neither installs
 * nor loads it.
 */
type WebAuthn = typeof import("@simplewebauthn/server");

/** The fix for a deployment that signs approvals but did not install the peer. */
export const webAuthnMissing =
  "signed approvals need @simplewebauthn/server, an optional peer dependency of toolgate that is not installed: npm install @simplewebauthn/server";

let loading: Promise<WebAuthn> | null = null;

/** Whether `err`, or an error it wraps (loaders and bundlers wrap), is Node's module-not-found. */
function moduleNotFound(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === "object" && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND") return true;
  }
  return false;
}

/** The WebAuthn library, or an Error saying which package to install (a later call tries again). */
export function loadWebAuthn(): Promise<WebAuthn> {
  loading ??= import("@simplewebauthn/server").catch((err: unknown) => {
    loading = null;
    if (moduleNotFound(err)) throw new Error(webAuthnMissing, { cause: err });
    throw err;
  });
  return loading;
}
