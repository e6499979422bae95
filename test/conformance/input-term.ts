/**
 * `input_term` is a Rego term in a string. It is parsed by the project's front end
 * (`parseTerm`) and written out as JSON text for the SDK. A set, or a term that is
 * not a constant, cannot travel as JSON; such a case is reported, not guessed.
 */
import type { Term } from "../../codegen/rego/ast.js";
import { parseTerm } from "../../codegen/rego/index.js";
import { errorText } from "./engine.js";

export type InputJson = { readonly ok: true; readonly json: string } | { readonly ok: false; readonly reason: string };

export function inputTermToJson(source: string): InputJson {
  let parsed: ReturnType<typeof parseTerm>;
  try {
    parsed = parseTerm(source, "input_term");
  } catch (err) {
    return { ok: false, reason: `parseTerm crashed: ${errorText(err)}` };
  }
  if (parsed.errors.length > 0 || parsed.term === null) {
    return { ok: false, reason: `input_term does not parse: ${parsed.errors.map((d) => d.message).join("; ")}` };
  }
  return termToJson(parsed.term);
}

/** Writes a constant term as JSON text; numbers keep their source spelling (no precision loss). */
export function termToJson(term: Term): InputJson {
  switch (term.type) {
    case "null":
      return { ok: true, json: "null" };
    case "boolean":
      return { ok: true, json: String(term.value) };
    case "number":
      return { ok: true, json: term.text };
    case "string":
      return { ok: true, json: JSON.stringify(term.value) };
    case "array": {
      const items = term.items.map(termToJson);
      const bad = items.find((i) => !i.ok);
      if (bad !== undefined) return bad;
      return { ok: true, json: `[${items.map((i) => (i as { json: string }).json).join(",")}]` };
    }
    case "object": {
      const parts: string[] = [];
      for (const [k, v] of term.items) {
        const key = termToJson(k);
        const value = termToJson(v);
        if (!key.ok) return key;
        if (!value.ok) return value;
        // Non-string keys become their JSON text, as OPA writes them.
        const keyText = k.type === "string" ? key.json : JSON.stringify(key.json);
        parts.push(`${keyText}:${value.json}`);
      }
      return { ok: true, json: `{${parts.join(",")}}` };
    }
    case "set":
      return { ok: false, reason: "input_term holds a set, which JSON (the SDK's only input format) cannot express" };
    default:
      return { ok: false, reason: `input_term is not a constant (${term.type})` };
  }
}
