import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Names the files whose content on disk differs from `files` (missing counts as stale). */
export function staleFiles(outDir: string, files: ReadonlyMap<string, string | Uint8Array>): string[] {
  const stale: string[] = [];
  for (const [rel, content] of files) {
    let current: Buffer | null = null;
    try {
      current = readFileSync(join(outDir, rel));
    } catch {
      current = null;
    }
    const wanted = typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content);
    if (current === null || !current.equals(wanted)) stale.push(join(outDir, rel));
  }
  return stale;
}

/** Writes each file atomically (temp file + rename) so a crash never leaves a half-written file. */
export function writeFiles(outDir: string, files: ReadonlyMap<string, string | Uint8Array>): string[] {
  const written: string[] = [];
  for (const [rel, content] of files) {
    const path = join(outDir, rel);
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, content);
    renameSync(tmp, path);
    written.push(path);
  }
  return written;
}
