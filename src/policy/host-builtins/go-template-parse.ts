/**
 * The part of Go's text/template that strings.render_template uses: text, `{{ }}`
 * actions with `{{-`/`-}}` trimming and comments, pipelines of commands with `|`,
 * fields (`.a.b`, `$x.a`), variables (`$x := ...`), literals, parenthesised
 * pipelines, and the control actions if / else if / else / range / with / end /
 * break / continue. `define`, `template` and `block` are rejected as unsupported.
 */
import { builtinError } from "./errors.js";

export type Operand =
  | { kind: "field"; base: Operand | null; names: string[]; pos: number; text: string }
  | { kind: "var"; name: string; pos: number }
  | { kind: "dot"; pos: number }
  | { kind: "string"; value: string }
  | { kind: "number"; value: number; int: boolean }
  | { kind: "bool"; value: boolean }
  | { kind: "nil" }
  | { kind: "ident"; name: string; pos: number }
  | { kind: "pipe"; pipe: Pipeline };

export interface Pipeline {
  readonly decl: string[];
  readonly assign: boolean;
  readonly cmds: Command[];
  readonly pos: number;
}

export interface Command {
  readonly ops: Operand[];
  /** The command as written, for error messages (`at <eq .n 1>`). */
  readonly text: string;
  readonly pos: number;
}

export type Node =
  | { kind: "text"; text: string }
  | { kind: "action"; pipe: Pipeline }
  | { kind: "if" | "with"; pipe: Pipeline; then: Node[]; else: Node[] }
  | { kind: "range"; pipe: Pipeline; body: Node[]; else: Node[] }
  | { kind: "break" | "continue" };

const FUNCS = new Set(["and", "or", "not", "len", "index", "slice", "print", "printf", "println", "eq", "ne", "lt", "le", "gt", "ge", "html", "js", "urlquery"]);

interface Action {
  readonly body: string;
  /** offset of body[0] in the template */
  readonly at: number;
}

type Item = { text: string } | Action;

export const lineOf = (src: string, pos: number): number => src.slice(0, pos).split("\n").length;

/** Go's ErrorContext location: `template:<line>:<byte in line>`. */
export function location(src: string, pos: number): string {
  const nl = src.lastIndexOf("\n", pos - 1);
  const col = nl === -1 ? pos : pos - nl - 1;
  return `template:${lineOf(src, pos)}:${Buffer.byteLength(src.slice(nl + 1, nl + 1 + col))}`;
}

function lex(src: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  let trimNext = false;
  while (i < src.length) {
    const open = src.indexOf("{{", i);
    let text = src.slice(i, open === -1 ? src.length : open);
    if (trimNext) text = text.replace(/^\s+/, "");
    trimNext = false;
    if (open === -1) {
      items.push({ text });
      break;
    }
    let start = open + 2;
    if (/^-[ \t\r\n]/.test(src.slice(start, start + 2))) {
      text = text.replace(/\s+$/, "");
      start += 1;
    }
    items.push({ text });
    const comment = /^\s*\/\*/.test(src.slice(start));
    const close = comment ? src.indexOf("*/", start) : findClose(src, start);
    const end = comment ? (close === -1 ? -1 : src.indexOf("}}", close)) : close;
    if (end === -1) throw parseError(src, open, comment ? "unclosed comment" : "unclosed action");
    let body = src.slice(start, end);
    if (/[ \t\r\n]-$/.test(body)) {
      body = body.slice(0, -1);
      trimNext = true;
    }
    if (!comment) items.push({ body, at: start });
    i = end + 2;
  }
  return items;
}

/** The `}}` that ends an action, skipping quoted strings. */
function findClose(src: string, from: number): number {
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === "`" || c === "'") {
      const q = c;
      for (i++; i < src.length && src[i] !== q; i++) if (src[i] === "\\" && q !== "`") i++;
      continue;
    }
    if (c === "}" && src[i + 1] === "}") return i;
  }
  return -1;
}

function parseError(src: string, pos: number, message: string): Error {
  return builtinError(`template: template:${lineOf(src, pos)}: ${message}`);
}

const TOKEN = /\s*(?:(\()|(\))|(\|)|(:=|=(?!=))|(,)|("(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)+')|(\$[A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)|(\.(?:[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)?)|([-+]?(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))|([A-Za-z_][A-Za-z0-9_]*))/y;

interface Tok {
  readonly t: "(" | ")" | "|" | "decl" | "," | "str" | "var" | "field" | "num" | "ident";
  readonly v: string;
  readonly pos: number;
}

function tokens(src: string, a: Action): Tok[] {
  const out: Tok[] = [];
  TOKEN.lastIndex = 0;
  const s = a.body;
  while (TOKEN.lastIndex < s.length) {
    if (/^\s*$/.test(s.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(s);
    if (m === null) throw parseError(src, a.at + at, `unexpected "${s.slice(at).trim()[0]}" in command`);
    const pos = a.at + m.index + m[0].length - m[0].trimStart().length;
    const kinds: Tok["t"][] = ["(", ")", "|", "decl", ",", "str", "var", "field", "num", "ident"];
    const k = m.slice(1).findIndex((g) => g !== undefined);
    out.push({ t: kinds[k]!, v: m[k + 1]!, pos });
  }
  return out;
}

function literal(src: string, tok: Tok): Operand {
  const v = tok.v;
  if (v.startsWith("`")) return { kind: "string", value: v.slice(1, -1) };
  if (v.startsWith('"')) {
    try {
      return { kind: "string", value: JSON.parse(v) as string };
    } catch {
      throw parseError(src, tok.pos, `invalid syntax: ${v}`);
    }
  }
  const ch = JSON.parse(`"${v.slice(1, -1).replace(/"/g, '\\"')}"`) as string;
  return { kind: "number", value: ch.codePointAt(0)!, int: true };
}

class PipeParser {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly toks: Tok[],
  ) {}

  done(): boolean {
    return this.i >= this.toks.length;
  }

  pipeline(pos: number, allowDecl: boolean): Pipeline {
    const decl: string[] = [];
    let assign = false;
    const t = this.toks;
    if (allowDecl && t[this.i]?.t === "var") {
      const names = [t[this.i]!.v];
      let j = this.i + 1;
      if (t[j]?.t === "," && t[j + 1]?.t === "var") {
        names.push(t[j + 1]!.v);
        j += 2;
      }
      if (t[j]?.t === "decl") {
        decl.push(...names);
        assign = t[j]!.v === "=";
        this.i = j + 1;
      }
    }
    const cmds: Command[] = [];
    for (;;) {
      const cmd: Operand[] = [];
      const first = t[this.i];
      while (!this.done() && t[this.i]!.t !== "|" && t[this.i]!.t !== ")") cmd.push(this.operand());
      if (cmd.length === 0 || first === undefined) throw parseError(this.src, pos, cmds.length === 0 ? "missing value for command" : "missing command");
      const last = t[this.i - 1]!;
      cmds.push({ ops: cmd, text: this.src.slice(first.pos, last.pos + last.v.length), pos: first.pos });
      if (this.done() || t[this.i]!.t !== "|") break;
      this.i++;
    }
    return { decl, assign, cmds, pos };
  }

  private operand(): Operand {
    const tok = this.toks[this.i++]!;
    switch (tok.t) {
      case "(": {
        const pipe = this.pipeline(tok.pos, false);
        if (this.toks[this.i]?.t !== ")") throw parseError(this.src, tok.pos, "unclosed left paren");
        this.i++;
        const next = this.toks[this.i];
        if (next?.t === "field" && next.pos === this.toks[this.i - 1]!.pos + 1) {
          this.i++;
          return { kind: "field", base: { kind: "pipe", pipe }, names: next.v.slice(1).split("."), pos: next.pos, text: next.v };
        }
        return { kind: "pipe", pipe };
      }
      case "str":
        return literal(this.src, tok);
      case "num": {
        const n = Number(tok.v.replace(/_/g, ""));
        if (Number.isNaN(n)) throw parseError(this.src, tok.pos, `illegal number syntax: "${tok.v}"`);
        return { kind: "number", value: n, int: !/[.eE]/.test(tok.v) || /^[-+]?0[xX]/.test(tok.v) };
      }
      case "var": {
        const [name, ...names] = tok.v.split(".");
        const v: Operand = { kind: "var", name: name!, pos: tok.pos };
        return names.length === 0 ? v : { kind: "field", base: v, names, pos: tok.pos, text: tok.v };
      }
      case "field":
        return tok.v === "." ? { kind: "dot", pos: tok.pos } : { kind: "field", base: null, names: tok.v.slice(1).split("."), pos: tok.pos, text: tok.v };
      case "ident":
        if (tok.v === "true" || tok.v === "false") return { kind: "bool", value: tok.v === "true" };
        if (tok.v === "nil") return { kind: "nil" };
        if (!FUNCS.has(tok.v)) throw parseError(this.src, tok.pos, `function "${tok.v}" not defined`);
        return { kind: "ident", name: tok.v, pos: tok.pos };
      default:
        throw parseError(this.src, tok.pos, `unexpected "${tok.v}" in operand`);
    }
  }
}

const KEYWORD = /^\s*(if|else|end|range|with|break|continue|define|template|block)\b/;

export function parseTemplate(src: string): Node[] {
  const items = lex(src);
  let k = 0;
  // Parses nodes until an {{end}} / {{else ...}} (returned), or the end of the template.
  const list = (inside: string | null): { nodes: Node[]; stop: { word: string; rest: Action } | null } => {
    const nodes: Node[] = [];
    while (k < items.length) {
      const item = items[k++]!;
      if ("text" in item) {
        if (item.text !== "") nodes.push({ kind: "text", text: item.text });
        continue;
      }
      const kw = KEYWORD.exec(item.body);
      if (kw === null) {
        const p = new PipeParser(src, tokens(src, item));
        nodes.push({ kind: "action", pipe: p.pipeline(item.at, true) });
        continue;
      }
      const word = kw[1]!;
      const rest: Action = { body: item.body.slice(kw[0].length), at: item.at + kw[0].length };
      if (word === "end" || word === "else") {
        if (inside === null) throw parseError(src, item.at, `unexpected {{${word}}}`);
        return { nodes, stop: { word, rest } };
      }
      if (word === "break" || word === "continue") {
        nodes.push({ kind: word });
        continue;
      }
      if (word === "define" || word === "template" || word === "block") throw parseError(src, item.at, `{{${word}}} is not supported by strings.render_template here`);
      nodes.push(control(word as "if" | "range" | "with", rest));
    }
    if (inside !== null) throw parseError(src, src.length, "unexpected EOF");
    return { nodes, stop: null };
  };
  const control = (word: "if" | "range" | "with", head: Action): Node => {
    const p = new PipeParser(src, tokens(src, head));
    const pipe = p.pipeline(head.at, word === "range" || word === "with" || word === "if");
    const body = list(word);
    let otherwise: Node[] = [];
    if (body.stop?.word === "else") {
      const chained = /^\s*(if|with)\b/.exec(body.stop.rest.body);
      if (chained !== null && word !== "range") {
        const rest = { body: body.stop.rest.body.slice(chained[0].length), at: body.stop.rest.at + chained[0].length };
        otherwise = [control(chained[1] as "if" | "with", rest)]; // {{else if}} shares the outer {{end}}
      } else {
        const tail = list(word);
        if (tail.stop?.word !== "end") throw parseError(src, head.at, "expected end; found {{else}}");
        otherwise = tail.nodes;
      }
    }
    return word === "range" ? { kind: "range", pipe, body: body.nodes, else: otherwise } : { kind: word, pipe, then: body.nodes, else: otherwise };
  };
  return list(null).nodes;
}
