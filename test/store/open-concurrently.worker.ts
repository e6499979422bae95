/** Opens the SQLite store at argv[2] once the clock reaches argv[3] (ms), then closes it; exit 1 on an error. */
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";

const [path, startAt] = [process.argv[2] as string, Number(process.argv[3])];
while (Date.now() < startAt) {
  // Spin so every process opens the file at the same moment.
}
const store = openSqliteStore(path, { walCheckpoint: "inline" });
await store.close();
