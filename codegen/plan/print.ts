/**
 * Pretty-printer for debug dumps and planner table tests. One statement per line,
 * nested blocks indented by two spaces; static strings are printed inline as JSON so
 * that a dump reads without the string table.
 */
import type { Block, Func, Operand, Plan, Policy, Stmt } from "./ir.js";

export function printPolicy(p: Policy): string {
  const out: string[] = [];
  for (const b of p.static.builtinFuncs) out.push(`builtin ${b.name}/${b.arity}`);
  for (const f of p.funcs) out.push(printFunc(f, p.static.strings));
  for (const pl of p.plans) out.push(printPlan(pl, p.static.strings));
  return out.join("\n");
}

export function printFunc(f: Func, strings: readonly string[]): string {
  const head = `func ${f.name}(${f.params.map((l) => `%${l}`).join(", ")}) -> %${f.return}`;
  return [head, ...printBlocks(f.blocks, strings, 1)].join("\n");
}

export function printPlan(p: Plan, strings: readonly string[]): string {
  return [`plan ${p.name}`, ...printBlocks(p.blocks, strings, 1)].join("\n");
}

function printBlocks(blocks: readonly Block[], strings: readonly string[], depth: number): string[] {
  const lines: string[] = [];
  for (const b of blocks) {
    lines.push(`${pad(depth)}block`);
    for (const s of b.stmts) lines.push(...printStmt(s, strings, depth + 1));
  }
  return lines;
}

function pad(depth: number): string {
  return "  ".repeat(depth);
}

export function printStmt(s: Stmt, strings: readonly string[], depth = 0): string[] {
  const o = (x: Operand): string => operand(x, strings);
  const l = (x: number): string => `%${x}`;
  const line = (text: string): string[] => [`${pad(depth)}${text}`];
  const nested = (text: string, blocks: readonly Block[]): string[] => [
    `${pad(depth)}${text}`,
    ...printBlocks(blocks, strings, depth + 1),
  ];
  switch (s.type) {
    case "ReturnLocalStmt": return line(`return ${l(s.source)}`);
    case "CallStmt": return line(`${l(s.result)} = call ${s.func}(${s.args.map(o).join(", ")})`);
    case "BlockStmt": return nested("blocks", s.blocks);
    case "BreakStmt": return line(`break ${s.index}`);
    case "DotStmt": return line(`${l(s.target)} = ${o(s.source)}[${o(s.key)}]`);
    case "LenStmt": return line(`${l(s.target)} = len ${o(s.source)}`);
    case "ScanStmt": return nested(`scan ${l(s.source)} key ${l(s.key)} value ${l(s.value)}`, [s.block]);
    case "NotStmt": return nested("not", [s.block]);
    case "AssignIntStmt": return line(`${l(s.target)} = int ${s.value}`);
    case "AssignVarStmt": return line(`${l(s.target)} = ${o(s.source)}`);
    case "AssignVarOnceStmt": return line(`${l(s.target)} = once ${o(s.source)}`);
    case "ResetLocalStmt": return line(`reset ${l(s.target)}`);
    case "MakeNullStmt": return line(`${l(s.target)} = null`);
    case "MakeNumberIntStmt": return line(`${l(s.target)} = number ${s.value}`);
    case "MakeConstStmt": return line(`${l(s.target)} = ${s.copy === true ? "copy of " : ""}const #${s.index}`);
    case "MakeNumberRefStmt": return line(`${l(s.target)} = number ${strings[s.index] ?? `?${s.index}`}`);
    case "MakeArrayStmt": return line(`${l(s.target)} = array[${s.capacity}]`);
    case "MakeObjectStmt": return line(`${l(s.target)} = object`);
    case "MakeSetStmt": return line(`${l(s.target)} = set`);
    case "EqualStmt": return line(`${o(s.a)} == ${o(s.b)}`);
    case "NotEqualStmt": return line(`${o(s.a)} != ${o(s.b)}`);
    case "IsArrayStmt": return line(`is_array ${o(s.source)}`);
    case "IsObjectStmt": return line(`is_object ${o(s.source)}`);
    case "IsSetStmt": return line(`is_set ${o(s.source)}`);
    case "IsDefinedStmt": return line(`is_defined ${l(s.source)}`);
    case "IsUndefinedStmt": return line(`is_undefined ${l(s.source)}`);
    case "ArrayAppendStmt": return line(`append ${l(s.array)} ${o(s.value)}`);
    case "ObjectInsertStmt": return line(`insert ${l(s.object)}[${o(s.key)}] = ${o(s.value)}`);
    case "ObjectInsertOnceStmt": return line(`insert once ${l(s.object)}[${o(s.key)}] = ${o(s.value)}`);
    case "ObjectMergeStmt": return line(`${l(s.target)} = merge ${l(s.a)} ${l(s.b)}`);
    case "SetAddStmt": return line(`add ${l(s.set)} ${o(s.value)}`);
    case "WithStmt": {
      const path = s.path.map((i) => JSON.stringify(strings[i] ?? `?${i}`)).join(".");
      return line(`${l(s.target)} = with ${l(s.local)}${path === "" ? "" : `.${path}`} as ${o(s.value)}`);
    }
    case "NopStmt": return line("nop");
    case "CoverStmt": return line(`cover ${s.point}`);
    case "ResultSetAddStmt": return line(`result ${l(s.value)}`);
  }
}

function operand(x: Operand, strings: readonly string[]): string {
  switch (x.kind) {
    case "local": return `%${x.local}`;
    case "bool": return String(x.value);
    case "string": return JSON.stringify(strings[x.index] ?? `?${x.index}`);
  }
}
