// Run the front end's unit tests (widgets/test/*.test.ts) with Node's own test runner:
// esbuild compiles them (no other tool needed), `node --test` runs them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const tests = readdirSync(join(here, "test")).filter((name) => name.endsWith(".test.ts"));
const outdir = mkdtempSync(join(tmpdir(), "graphnb-widget-tests-"));
try {
  await esbuild.build({
    entryPoints: tests.map((name) => join(here, "test", name)),
    bundle: true,
    format: "esm",
    platform: "node",
    outdir,
    outExtension: { ".js": ".mjs" },
    logLevel: "warning",
  });
  const compiled = readdirSync(outdir).map((name) => join(outdir, name));
  const run = spawnSync(process.execPath, ["--test", ...compiled], { stdio: "inherit" });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
