// Bundle the widget into graphnb/static (widget.js + widget.css), so installing graphnb
// needs no Node. The bundle's first line records a hash of the sources it was built from;
// tests/widget/test_bundle.py recomputes it to catch a bundle older than its sources.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const outdir = join(here, "..", "graphnb", "static");

/** Files whose content decides the bundle, as sorted POSIX paths relative to widgets/. */
function sources() {
  const files = ["build.mjs", "package-lock.json"];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(relative(here, path).split("\\").join("/"));
    }
  };
  walk(join(here, "src"));
  return files.sort();
}

/** sha256 over each file's path and bytes; mirrored by tests/widget/test_bundle.py. */
export function sourceHash() {
  const hash = createHash("sha256");
  for (const file of sources()) {
    hash.update(file);
    hash.update("\0");
    hash.update(readFileSync(join(here, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const watch = process.argv.includes("--watch");
const options = {
  entryPoints: { widget: join(here, "src", "index.tsx") },
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: !watch,
  sourcemap: false,
  outdir,
  legalComments: "none",
  define: { "process.env.NODE_ENV": watch ? '"development"' : '"production"' },
  banner: { js: `/* graphnb widget bundle; sources sha256: ${sourceHash()} */` },
  logLevel: "info",
};

if (watch) {
  const context = await esbuild.context(options);
  await context.watch();
} else {
  await esbuild.build(options);
}
