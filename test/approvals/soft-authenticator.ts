/**
 * A software WebAuthn authenticator for tests without a browser: a P-256 key, its COSE public
 * key (as a registered credential), and assertions (authenticator data, client data, ECDSA
 * signature) over a challenge, exactly as a browser would send them.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import type { KeyObject } from "node:crypto";
import type { JsonObject } from "../../src/manifest.js";
import type { ApproverCredential } from "../../src/store/store.js";

export interface SoftAuthenticator {
  readonly credential_id: string;
  /** The credential as the inbox stores it after registration. */
  credential(tenant: string, approver: string, nowMs?: number): ApproverCredential;
  /** An assertion over `challenge` (base64url) for `origin`; the counter rises with every call. */
  assert(challenge: string, origin?: string): JsonObject;
  /** Sets the signature counter back to 0, as a cloned authenticator would report it. */
  resetCounter(): void;
}

const b64u = (b: Buffer): string => b.toString("base64url");

function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: "jwk" });
  const x = Buffer.from(jwk.x!, "base64url");
  const y = Buffer.from(jwk.y!, "base64url");
  // CBOR map {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}
  return Buffer.concat([Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]), x, Buffer.from([0x22, 0x58, 0x20]), y]);
}

export function softAuthenticator(rpId = "localhost", defaultOrigin = "http://localhost"): SoftAuthenticator {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const id = b64u(randomBytes(16));
  let counter = 0;
  return {
    credential_id: id,
    credential: (tenant, approver, nowMs = Date.now()) => ({
      credential_id: id,
      tenant,
      approver,
      public_key: b64u(coseKey(publicKey)),
      counter: 0,
      transports: ["internal"],
      rp_id: rpId,
      origin: defaultOrigin,
      created_at_ms: nowMs,
    }),
    resetCounter() {
      counter = 0;
    },
    assert(challenge, origin = defaultOrigin) {
      counter += 1;
      const count = Buffer.alloc(4);
      count.writeUInt32BE(counter);
      const authData = Buffer.concat([createHash("sha256").update(rpId).digest(), Buffer.from([0x05]), count]);
      const clientData = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge, origin, crossOrigin: false }));
      const signature = sign("sha256", Buffer.concat([authData, createHash("sha256").update(clientData).digest()]), privateKey);
      return {
        id,
        rawId: id,
        type: "public-key",
        response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature) },
        clientExtensionResults: {},
      };
    },
  };
}

/** The same assertion with one byte of its signature changed. */
export function tamperSignature(assertion: JsonObject): JsonObject {
  const response = assertion["response"] as JsonObject;
  const sig = Buffer.from(String(response["signature"]), "base64url");
  sig[sig.length - 1] = sig[sig.length - 1]! ^ 0x01;
  return { ...assertion, response: { ...response, signature: b64u(sig) } };
}
