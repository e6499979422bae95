/** semver.is_valid and semver.compare (Semantic Versioning 2.0.0 precedence, as OPA's semver package). */
import { builtinError } from "./errors.js";
import { stringOperand } from "./operands.js";

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

interface Version {
  readonly core: readonly bigint[];
  readonly pre: readonly string[];
}

function parse(s: string): Version | null {
  const m = SEMVER.exec(s);
  if (m === null) return null;
  return { core: [BigInt(m[1]!), BigInt(m[2]!), BigInt(m[3]!)], pre: m[4] === undefined ? [] : m[4].split(".") };
}

function cmpIdent(a: string, b: string): number {
  const na = /^\d+$/.test(a);
  const nb = /^\d+$/.test(b);
  if (na && nb) return Math.sign(Number(BigInt(a) - BigInt(b)));
  if (na) return -1;
  if (nb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i]! < b.core[i]! ? -1 : 1;
  // A pre-release has lower precedence than the release.
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const c = cmpIdent(a.pre[i]!, b.pre[i]!);
    if (c !== 0) return c;
  }
  return Math.sign(a.pre.length - b.pre.length);
}

export function semverIsValid(v: unknown): boolean {
  return typeof v === "string" && parse(v) !== null;
}

export function semverCompare(a: unknown, b: unknown): number {
  const sa = stringOperand(a, 1);
  const sb = stringOperand(b, 2);
  const va = parse(sa);
  if (va === null) throw builtinError(`operand 1: string ${sa} is not a valid SemVer`);
  const vb = parse(sb);
  if (vb === null) throw builtinError(`operand 2: string ${sb} is not a valid SemVer`);
  return compare(va, vb);
}

export const semverBuiltins = {
  "semver.is_valid": semverIsValid,
  "semver.compare": semverCompare,
};
