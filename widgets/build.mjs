// Bundles every figure view of the page (src/attnlab/static/js/figures/*.js) with the notebook
// adapter (src/adapter.js) into one ES module per widget, as anywidget loads them, and the
// page's figure styles into one sheet scoped to the widget's root:
//   node build.mjs [OUT_DIR]        (default: ../src/attnlab/widgets/bundles)
// The page's own bundle is page.mjs's. Some modules are put in place of the page's
// own for the views: lib/viewstrings.js (catalogues come from the kernel, not a fetch),
// lib/trainsocket.js (FIG 2 talks to the kernel over the widget's comm, not a WebSocket), and
// lib/layertiming.js and lib/framepicker.js (FIG 7's timing and frame upload ask the kernel).
// The output depends only on the sources, so tests/widgets/test_bundles.py rebuilds it into a
// temporary folder and compares, byte for byte, with the committed bundles.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const STATIC = path.join(HERE, "..", "src", "attnlab", "static");
const FIGURES = path.join(STATIC, "js", "figures");
const OUT = path.resolve(process.argv[2] ?? path.join(HERE, "..", "src", "attnlab", "widgets", "bundles"));
const TARGET = ["chrome100", "firefox100", "safari15"]; // notebook front-ends of the last years
const SHEETS = ["figures.css", "panels.css"]; // the page's figure styles, then css/figures/*.css
const ROOT = ".attnlab-nb"; // the adapter's root element: every rule is scoped under it
// A page rule for a narrow screen (@media (max-width: …), the figure then about as wide as the
// screen) asks, in a notebook, how wide the widget's root is: a cell is narrower than the window.
const WIDTH_QUERY = /@media\s*(\((?:min|max)-width:[^)]*\)(?:\s*and\s*\((?:min|max)-width:[^)]*\))*)/g;
const CONTAINER = "attnlab-nb"; // the root's container name (widget.css)

// the page's module → its notebook stand-in, for every importer but the stand-in itself
const STAND_INS = { "viewstrings.js": "strings.js", "trainsocket.js": "kernelsocket.js",
  "layertiming.js": "kernelapi.js", "framepicker.js": "kernelapi.js" };
const standIns = {
  name: "notebook-stand-ins",
  setup(build) {
    build.onResolve({ filter: /\/lib\/(viewstrings|trainsocket|layertiming|framepicker)\.js$/ }, (args) => {
      const own = path.join(HERE, "src", STAND_INS[path.basename(args.path)]);
      return args.importer === own ? undefined : { path: own };
    });
  },
};

/** One widget: `view` is a path relative to src/, the module exporting mount(root, ctx). */
async function bundle(name, view) {
  await esbuild.build({
    stdin: {
      contents: `import * as view from ${JSON.stringify(view)};\n`
        + `import { widget } from "./adapter.js";\nexport default widget(view);\n`,
      resolveDir: path.join(HERE, "src"),
      sourcefile: `${name}.entry.js`,
    },
    absWorkingDir: HERE,
    bundle: true,
    format: "esm",
    target: TARGET,
    minify: true,
    legalComments: "none",
    plugins: [standIns],
    outfile: path.join(OUT, `${name}.js`),
    logLevel: "warning",
  });
}

/** One rule block of style.css by its selector (its custom properties, .sr-only, [hidden]). */
function pageRule(css, selector) {
  const found = css.match(new RegExp(`(^|\\n)${selector.replace(/[.[\]]/g, "\\$&")}\\s*\\{[^}]*\\}`));
  if (!found) throw new Error(`style.css has no ${selector} rule`);
  return found[0].trim();
}

/** The figure sheets nested under ROOT (esbuild flattens the nesting for TARGET). */
async function styles() {
  const page = readFileSync(path.join(STATIC, "css", "style.css"), "utf8");
  const own = readFileSync(path.join(HERE, "src", "widget.css"), "utf8");
  const figureSheets = readdirSync(path.join(STATIC, "css", "figures")).filter((f) => f.endsWith(".css"));
  const files = [...SHEETS, ...figureSheets.sort().map((f) => path.join("figures", f))];
  const sheets = files.map((f) => readFileSync(path.join(STATIC, "css", f), "utf8")
    .replace(WIDTH_QUERY, `@container ${CONTAINER} $1`));
  const vars = pageRule(page, ":root").replace(/^:root/, "&");
  const global = [".sr-only", "[hidden]"].map((selector) => pageRule(page, selector)).join("\n");
  const nested = `${ROOT} {\n${vars}\n${global}\n${own}\n${sheets.join("\n")}\n}\n`;
  const { code } = await esbuild.transform(nested, { loader: "css", target: TARGET, minify: true });
  writeFileSync(path.join(OUT, "widget.css"), code);
}

mkdirSync(OUT, { recursive: true });
// a view is a module of figures/ that exports mount(root, ctx) (a helper module beside it is not)
const isView = (f) => /^export (async )?function mount\(/m.test(readFileSync(path.join(FIGURES, f), "utf8"));
const views = readdirSync(FIGURES).filter((f) => f.endsWith(".js") && isView(f)).sort();
for (const file of views) await bundle(path.basename(file, ".js"), `../../src/attnlab/static/js/figures/${file}`);
await bundle("attention-map", "./attentionmap.js");
await styles();
console.log(`attnlab widgets: ${views.length + 1} bundles and widget.css in ${path.relative(process.cwd(), OUT) || "."}`);
