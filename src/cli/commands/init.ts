import type { RegisterCommand } from "./index.js";
import { initProject } from "../init-project.js";

/** `toolgate init [dir]`: a working starter project in an empty folder. */
export const registerInit: RegisterCommand = (program, setExitCode) => {
  program
    .command("init")
    .description("create a starter project: tools.yaml, policies/ with the shipped rules and their tests, typed handlers, src/main.ts, package.json")
    .argument("[dir]", "folder to create or fill", ".")
    .option("--force", "write into a non-empty folder, replacing files of the same name")
    .action((dir: string, opts: { force?: boolean }) => {
      const result = initProject({ dir, force: opts.force === true });
      switch (result.kind) {
        case "not_a_directory":
          console.error(`${dir} is not a directory`);
          setExitCode(1);
          return;
        case "not_empty":
          console.error(
            `${dir} is not empty (${result.entries.slice(0, 5).join(", ")}${result.entries.length > 5 ? ", ..." : ""})\n` +
              "  hint: pick an empty or new folder, or pass --force to write into this one (files of the same name are replaced)",
          );
          setExitCode(1);
          return;
        case "written": {
          console.log(`wrote ${result.files.length} files to ${dir}/`);
          const cd = dir === "." ? "" : `cd ${dir} && `;
          console.log(`next: ${cd}npm install && npx toolgate codegen && npx toolgate build && npx toolgate test && npm start`);
        }
      }
    });
};
