/**
 * The links of the per-tenant audit chain: a record's content hash is SHA-256 over its
 * canonical JSON (RFC 8785), and its link is SHA-256 over the previous link followed by that
 * content hash (both 64 lowercase hex digits, so the concatenation is unambiguous). The first
 * record of a tenant links to `genesisLink`. PostgreSQL computes the same link in SQL
 * (migration 012, `toolgate_chain_link`). Enters: contents and links. Leaves: hex digests.
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

export const genesisLink = "0".repeat(64);

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * SHA-256 of the RFC 8785 encoding of `content`. Values RFC 8785 cannot encode (a lone
 * surrogate in a string, which JSON.stringify escapes) are hashed as their JSON.stringify text
 * under a prefix, so logging never fails on them and the hash is still reproducible.
 */
export function contentHash(content: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(content);
  } catch {
    text = undefined;
  }
  return sha256(text ?? `noncanonical:${JSON.stringify(content)}`);
}

/** The link of a record whose content hashes to `hash`, after the record linked `prev`. */
export function chainLink(prev: string, hash: string): string {
  return sha256(prev + hash);
}
