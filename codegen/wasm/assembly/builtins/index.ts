// Native builtins: one export per Rego builtin (RUNTIME-API.md section 5).
export * from "./cmp";
export * from "./arith";
export * from "./agg";
export * from "./strings";
export * from "./collections";
export * from "./types";
export * from "./encoding";
export * from "./sprintf";
export * from "./net";
export * from "./relations";
export * from "./trim";
export * from "./graph";
export * from "./exact";
