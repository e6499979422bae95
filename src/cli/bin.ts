/** The `toolgate` executable: runs the CLI on the process arguments and sets the exit code. */
import { reportFatal } from "./fatal.js";
import { main } from "./main.js";

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  // A bug prints its stack and exits 70; an environment problem says how to fix it and exits 1.
  const report = reportFatal(err);
  console.error(report.message);
  process.exitCode = report.exitCode;
}
