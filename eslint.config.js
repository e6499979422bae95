// Module boundaries, checked: no import cycles, the run-time library never reaches the
// build tools or the CLI, the folders of the library import one way only (call-data <-
// approvals <- runtime), generated code imports only toolgate/generated-runtime, and
// no dependency hides behind a computed import().
import { readdirSync } from "node:fs";
import importX from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import tseslint from "typescript-eslint";

const library = ["src/runtime", "src/approvals", "src/call-data", "src/policy", "src/store"];
// Everything in src/ but the CLI (folders and top-level modules).
const notCli = readdirSync("src").filter((name) => name !== "cli").map((name) => `./src/${name}`);

export default tseslint.config(
  {
    ignores: ["node_modules/", "dist/", "coverage/", "codegen/wasm/assembly/", "generated/validators.js", "test/fixtures/", "test/artifacts/", "**/*.d.ts"],
  },
  {
    files: ["**/*.ts", "**/*.js", "**/*.mjs"],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: "module" },
    plugins: { "@typescript-eslint": tseslint.plugin, "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "tsconfig.json" })],
    },
    linterOptions: { reportUnusedDisableDirectives: "off" },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            ...library.map((target) => ({
              target: `./${target}`,
              from: ["./codegen", "./src/cli"],
              message: "the run-time library never imports the build tools or the CLI (only src/cli, the composition root, joins them)",
            })),
            {
              target: "./src/approvals",
              from: "./src/runtime",
              message: "src/runtime imports src/approvals, never the reverse (no runtime <-> approvals folder cycle): take what the approvals need as a parameter (deps.ts) or from src/call-data",
            },
            {
              target: "./src/call-data",
              from: ["./src/runtime", "./src/approvals"],
              message: "src/call-data is below the gate and the approvals: it imports neither",
            },
            {
              target: notCli,
              from: "./src/cli",
              message: "src/cli is the composition root: nothing else in src imports it",
            },
            {
              target: "./generated",
              from: "./src",
              except: ["./generated-runtime.ts"],
              message: "generated code imports only toolgate/generated-runtime",
            },
            {
              target: "./generated",
              from: ["./codegen", "./test", "./bench"],
              message: "generated code imports only toolgate/generated-runtime",
            },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        {
          // A specifier in a variable hides a dependency from readers and tools; loading a
          // user's file by path (import(pathToFileURL(file).href)) is not a dependency.
          selector: "ImportExpression[source.type='Identifier']",
          message: "import() of a specifier held in a variable hides a dependency: import the string literal",
        },
      ],
    },
  },
  {
    files: ["generated/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^(?!\\.\\.?/|toolgate/generated-runtime$)", message: "generated code imports only toolgate/generated-runtime" }] },
      ],
    },
  },
);
