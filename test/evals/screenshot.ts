/**
 * Renders the HTML report of both scripted agents on the example suite and saves a
 * PNG of it to docs/agent-eval-report.png. Run by hand (`npx tsx test/evals/screenshot.ts`);
 * needs Chromium (`apt-get install -y chromium`) at /usr/bin/chromium or CHROMIUM.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { carefulAgent, loadSuites, naiveAgent, runSuites } from "../../src/evals/index.js";
import { formatHtml } from "../../src/evals/report-html.js";
import { shippedRunOptions } from "./env.js";

const o = await shippedRunOptions();
const result = await runSuites(loadSuites(["test/evals/"], { manifest: o.manifest }), [carefulAgent(), naiveAgent()], o);
const html = join(tmpdir(), `agent-eval-report-${process.pid}.html`);
writeFileSync(html, formatHtml(result));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(pathToFileURL(html).href);
  mkdirSync("docs", { recursive: true });
  await page.screenshot({ path: "docs/agent-eval-report.png", fullPage: false });
} finally {
  await browser.close();
}
console.log("wrote docs/agent-eval-report.png");
