/**
 * yaml.unmarshal and yaml.is_valid as OPA answers them (topdown/encoding.go over
 * sigs.k8s.io/yaml): the first document of the text as JSON; a syntax error is a
 * builtin error worded as go-yaml words it (`error converting YAML to JSON: yaml:
 * line 1: did not find expected ',' or ']'`); `yaml.is_valid` of anything but a
 * string is false. yaml.marshal stays the SDK's.
 */
import { parseAllDocuments, type YAMLError } from "yaml";
import { builtinError } from "./errors.js";
import { stringOperand } from "./operands.js";

/** go-yaml's texts for the syntax errors a policy's YAML most often has. */
function goYamlText(e: YAMLError, source: string): string {
  const line = e.linePos?.[0].line ?? 1;
  const at = (text: string): string => `yaml: line ${line}: ${text}`;
  switch (e.code) {
    case "MISSING_CHAR":
      if (/flow sequence/i.test(e.message)) return at("did not find expected ',' or ']'");
      if (/flow map/i.test(e.message)) return at("did not find expected ',' or '}'");
      return at("found unexpected end of stream");
    case "BAD_INDENT":
      if (/flow sequence/i.test(e.message)) return at("did not find expected ',' or ']'");
      return at("did not find expected key");
    case "BLOCK_AS_IMPLICIT_KEY":
      return at("mapping values are not allowed in this context");
    case "TAB_AS_INDENT":
      return at("found character that cannot start any token");
    case "DUPLICATE_KEY": {
      const key = /^\s*([^:\n]*):/.exec(source.split("\n")[line - 1] ?? "")?.[1]?.trim() ?? "";
      return `yaml: unmarshal errors:\n  line ${line}: key ${JSON.stringify(key)} already set in map`;
    }
    default:
      return at(e.message.split(" at line ")[0]!.replace(/^./, (c) => c.toLowerCase()));
  }
}

type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

function parse(source: string): Parsed {
  const docs = parseAllDocuments(source, { uniqueKeys: true });
  if (!Array.isArray(docs)) return { ok: true, value: null };
  const first = docs[0];
  if (first === undefined) return { ok: true, value: null };
  const error = first.errors[0];
  if (error !== undefined) return { ok: false, message: goYamlText(error, source) };
  try {
    return { ok: true, value: first.toJS({ maxAliasCount: 100 }) ?? null };
  } catch (e) {
    return { ok: false, message: `yaml: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export function yamlUnmarshal(x: unknown): unknown {
  const r = parse(stringOperand(x, 1));
  if (!r.ok) throw builtinError(`error converting YAML to JSON: ${r.message}`);
  return r.value;
}

export function yamlIsValid(x: unknown): boolean {
  return typeof x === "string" && parse(x).ok;
}

export const yamlBuiltins = {
  "yaml.unmarshal": yamlUnmarshal,
  "yaml.is_valid": yamlIsValid,
};
