// Bundles the lesson page into one script and one sheet, as `attnlab serve` serves them:
//   node page.mjs [OUT_DIR]        (default: ../src/attnlab/static/bundle; `make page`)
// What goes in is read from index.html's <!-- page:begin --> … <!-- page:end --> block, the
// tags the page loads unbundled (ATTNLAB_PAGE_SOURCES=1): its stylesheets in order (each
// figure's css/figures/NAME.css right after panels.css, where js/lib/figureshells.js links
// them), its classic scripts (KaTeX: put on `window` as the page's modules expect), and its
// module script (js/main.js) with every module it imports, the figure views of its
// `import(`../figures/${name}.js`)` included: esbuild follows the imports, so a new module
// lands in the bundle without a change here. KaTeX's fonts stay where they are
// (/static/vendor/katex/fonts): the browser fetches only those a formula on screen uses.
// Out: page-HASH.js, page-HASH.css (HASH: of the content, so a name is never reused for other
// bytes and can be cached for good), a .gz of each (served to a browser that accepts gzip),
// and page.json naming them. tests/web/test_page_bundle.py rebuilds into a temporary folder
// and fails when the committed bundle is stale.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const STATIC = path.join(HERE, "..", "src", "attnlab", "static");
const OUT = path.resolve(process.argv[2] ?? path.join(STATIC, "bundle"));
const TARGET = ["chrome100", "firefox100", "safari15"];
const BLOCK = /<!-- page:begin[^>]*-->([\s\S]*?)<!-- page:end -->/;
// a classic script of the block → the global it defines (as a module it exports it instead)
const GLOBALS = { "vendor/katex/katex.min.js": "katex", "vendor/katex/contrib/auto-render.min.js": "renderMathInElement" };
const FIGURE_SHEETS_AFTER = "css/panels.css";

/** The block's tags: stylesheets, classic scripts, module scripts (paths under static/). */
function pageBlock() {
  const found = readFileSync(path.join(STATIC, "index.html"), "utf8").match(BLOCK);
  if (!found) throw new Error("index.html has no <!-- page:begin --> … <!-- page:end --> block");
  const paths = (re) => [...found[1].matchAll(re)].map((m) => m[1].replace(/^\/static\//, ""));
  return {
    sheets: paths(/<link rel="stylesheet" href="([^"]+)"/g),
    classic: paths(/<script defer src="([^"]+)"/g),
    modules: paths(/<script type="module" src="([^"]+)"/g),
  };
}

const staticPath = (rel) => path.join(STATIC, rel);

// A font named by a sheet stays a URL of the page's own.
const fontsStay = {
  name: "fonts-stay",
  setup(build) {
    build.onResolve({ filter: /\.(woff2?|ttf)$/ }, (args) => {
      // already a URL of the page's own (css/cjk.css: /static/fonts/…): as it is, not a path on
      // this disk, which would name the checkout's depth in the bundle
      if (args.path.startsWith("/")) return { path: args.path, external: true };
      const file = path.resolve(args.resolveDir, args.path);
      return { path: `/static/${path.relative(STATIC, file).split(path.sep).join("/")}`, external: true };
    });
  },
};

// `require("katex")` in KaTeX's auto-render is the vendored KaTeX.
const vendoredKatex = {
  name: "vendored-katex",
  setup(build) {
    build.onResolve({ filter: /^katex$/ }, () => ({ path: staticPath("vendor/katex/katex.min.js") }));
  },
};

function scriptEntry({ classic, modules }) {
  const unknown = classic.filter((c) => !(c in GLOBALS));
  if (unknown.length) throw new Error(`page.mjs: name the global of ${unknown.join(", ")} in GLOBALS`);
  return ["attnlab:globals", ...modules.map(staticPath)].map((f) => `import ${JSON.stringify(f)};\n`).join("");
}

// The classic scripts' globals are set in a module of their own, imported first, so they are
// there before main.js runs.
const classicGlobals = (classic) => ({
  name: "classic-globals",
  setup(build) {
    build.onResolve({ filter: /^attnlab:globals$/ }, () => ({ path: "globals", namespace: "attnlab" }));
    build.onLoad({ filter: /.*/, namespace: "attnlab" }, () => ({
      resolveDir: STATIC,
      contents: classic.map((c, i) => `import g${i} from ${JSON.stringify(staticPath(c))};\n`
        + `window.${GLOBALS[c]} = g${i};\n`).join(""),
    }));
  },
});

function sheetEntry({ sheets }) {
  const figures = readdirSync(staticPath("css/figures")).filter((f) => f.endsWith(".css")).sort()
    .map((f) => `css/figures/${f}`);
  const at = sheets.indexOf(FIGURE_SHEETS_AFTER);
  const all = at < 0 ? [...sheets, ...figures] : [...sheets.slice(0, at + 1), ...figures, ...sheets.slice(at + 1)];
  return all.map((rel) => `@import ${JSON.stringify(staticPath(rel))};\n`).join("");
}

async function build(contents, loader, classic) {
  const result = await esbuild.build({
    stdin: { contents, loader, resolveDir: STATIC, sourcefile: `page.${loader}` },
    absWorkingDir: HERE,
    bundle: true,
    format: loader === "js" ? "esm" : undefined,
    target: TARGET,
    minify: true,
    legalComments: "none",
    charset: "utf8",
    plugins: [fontsStay, vendoredKatex, classicGlobals(classic)],
    write: false,
    outdir: OUT,
    logLevel: "warning",
  });
  return result.outputFiles[0].contents;
}

/** page-HASH.EXT and its .gz; returns the name. */
function emit(bytes, ext) {
  const name = `page-${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.${ext}`;
  writeFileSync(path.join(OUT, name), bytes);
  writeFileSync(path.join(OUT, `${name}.gz`), gzipSync(bytes, { level: 9 }));
  return name;
}

// KaTeX's sheet names a .woff and a .ttf after each .woff2; every browser the bundle targets
// takes the .woff2, and the others are not shipped: the sheet names only files that exist.
const FALLBACK_FONT = /,url\([^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)/g;
const withoutFallbackFonts = (bytes) =>
  new TextEncoder().encode(new TextDecoder().decode(bytes).replace(FALLBACK_FONT, ""));

mkdirSync(OUT, { recursive: true });
for (const f of readdirSync(OUT)) if (/^page[-.]/.test(f)) rmSync(path.join(OUT, f));
const block = pageBlock();
const js = await build(scriptEntry(block), "js", block.classic);
const css = withoutFallbackFonts(await build(sheetEntry(block), "css", []));
const manifest = { js: emit(js, "js"), css: emit(css, "css") };
writeFileSync(path.join(OUT, "page.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`attnlab page: ${manifest.js} (${js.length} B), ${manifest.css} (${css.length} B) in ${path.relative(process.cwd(), OUT) || "."}`);
