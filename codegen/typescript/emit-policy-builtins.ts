import { relative, resolve, sep } from "node:path";
import type { PolicyBuiltinsRef } from "../toolsyaml/index.js";
import { GeneratedFile } from "./generated-file.js";

/**
 * generated/policy-builtins.ts: the custom builtins of tools.yaml `policy.builtins`, for the
 * application to hand to its policy engine (`loadPolicyEngineFromFiles({ ..., builtins:
 * policyBuiltins })`), so that the running gate serves the builtins `check`, `build`, `test`
 * and `eval` compiled against. Without `policy.builtins` it exports an empty set.
 */
export function emitPolicyBuiltins(ref: PolicyBuiltinsRef | null, outDir: string, source: string): GeneratedFile {
  const out = new GeneratedFile("policy-builtins.ts", source);
  out.importType("toolgate/generated-runtime", "CustomBuiltins");
  if (ref === null) {
    out.importValue("toolgate/generated-runtime", "NO_CUSTOM_BUILTINS");
    out.print(
      `/** The custom builtins of ${source} \`policy.builtins\` (none declared): pass them to the policy engine. */`,
      "export const policyBuiltins: CustomBuiltins = NO_CUSTOM_BUILTINS;",
    );
    return out;
  }
  out.importValue("toolgate/generated-runtime", "toCustomBuiltins");
  out.importRaw(`import * as declared from "${importSpecifier(outDir, ref.path)}";`);
  out.print(
    `/**`,
    ` * The custom builtins of ${source} \`policy.builtins\` (${ref.module}), checked as \`toolgate check\``,
    ` * checks them: pass them to the policy engine (its \`builtins\` option).`,
    ` */`,
    "export const policyBuiltins: CustomBuiltins = toCustomBuiltins(",
    "  (declared as { readonly default?: unknown; readonly builtins?: unknown }).default ??",
    "    (declared as { readonly builtins?: unknown }).builtins,",
    ");",
  );
  return out;
}

/** The module's path from the output folder, as an ES module specifier (`.ts` sources are imported as `.js`). */
function importSpecifier(outDir: string, modulePath: string): string {
  const rel = relative(resolve(outDir), resolve(modulePath)).split(sep).join("/");
  const spec = rel.startsWith(".") ? rel : `./${rel}`;
  return spec.replace(/\.ts$/, ".js").replace(/\.mts$/, ".mjs").replace(/\.cts$/, ".cjs");
}
