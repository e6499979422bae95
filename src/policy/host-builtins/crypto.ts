/** crypto.md5/sha1/sha256/sha512, crypto.hmac.*, through node:crypto (hex digests of the UTF-8 bytes, as OPA). */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { stringOperand } from "./operands.js";

const digest = (alg: string) => (x: unknown): string => createHash(alg).update(stringOperand(x, 1), "utf8").digest("hex");
const hmac = (alg: string) => (x: unknown, key: unknown): string => {
  const msg = stringOperand(x, 1);
  return createHmac(alg, stringOperand(key, 2)).update(msg, "utf8").digest("hex");
};

/** Constant-time comparison of two MACs (Go's hmac.Equal: different lengths are unequal). */
export function hmacEqual(a: unknown, b: unknown): boolean {
  const x = Buffer.from(stringOperand(a, 1), "utf8");
  const y = Buffer.from(stringOperand(b, 2), "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

export const cryptoBuiltins = {
  "crypto.md5": digest("md5"),
  "crypto.sha1": digest("sha1"),
  "crypto.sha256": digest("sha256"),
  "crypto.hmac.md5": hmac("md5"),
  "crypto.hmac.sha1": hmac("sha1"),
  "crypto.hmac.sha256": hmac("sha256"),
  "crypto.hmac.sha512": hmac("sha512"),
  "crypto.hmac.equal": hmacEqual,
};
