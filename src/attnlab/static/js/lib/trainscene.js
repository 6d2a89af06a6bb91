// FIG 2's display scene (left panel): the blocks on the table (draggable; not used for
// training), the instruction, both models' answers and the attention rings, and its controls
// (how many blocks, which colour is A, and B for the vector task). Drawn from the figure's
// settings and the run's latest prediction; the server's answers arrive over the socket.

import { DARK_INK, objectColour } from "./colours.js";
import { select, stepper } from "./controls.js";
import { drawPrediction, sceneLegend } from "./predictionmarks.js";
import { html, el } from "./svg.js";
import { tableScene } from "./table.js";

/** The display scene from settings: blocks, valid target/second colours, B's index. */
export function sceneFrom(s, slotColours) {
  const colours = slotColours.slice(0, s.n_objects);
  const positions = colours.map((_, i) => [s.pos[2 * i], s.pos[2 * i + 1]]);
  const target = colours.includes(s.target) ? s.target : colours[0];
  let second = colours.includes(s.second) && s.second !== target ? s.second : colours.find((c) => c !== target);
  if (second === undefined) second = target;
  return { colours, positions, target, second, secondIndex: colours.indexOf(second) };
}

/** The instruction line in `node`; "p_A" is written with a real subscript. */
function setInstruction(node, text) {
  node.replaceChildren();
  text.split(/(p_[AB])/).forEach((part) => {
    if (!/^p_[AB]$/.test(part)) node.appendChild(document.createTextNode(part));
    else {
      el("tspan", { class: "math-p", text: "p" }, node);
      el("tspan", { "baseline-shift": "sub", "font-size": "10", text: part[2] }, node);
    }
  });
}

/**
 * Keep the instruction inside the drawing (`room` wide): on a phone its labels are drawn larger
 * (figures.css), and a long one is then squeezed to fit rather than cut off.
 */
function fitInstruction(node, room) {
  node.removeAttribute("textLength");
  node.removeAttribute("lengthAdjust");
  if (!node.isConnected || node.getComputedTextLength() <= room) return;
  node.setAttribute("textLength", String(room));
  node.setAttribute("lengthAdjust", "spacingAndGlyphs");
}

/** How many blocks, A, and B (vector task only), under the table. */
function sceneControls(parent, { ctx, t, colourName, onScene }) {
  const counts = ctx.params.find((p) => p.name === "n_objects");
  const bar = html("div", { class: "toolbar scene-controls" }, parent);
  const count = stepper(bar, { name: "tr-objects", label: t("tr.objects"), value: ctx.settings.n_objects,
    min: counts.min, max: counts.max, onChange: (v) => onScene({ n_objects: v }) });
  const target = select(bar, { name: "tr-target", label: t("tr.target"), options: [], onChange: (v) => onScene({ target: Number(v) }) });
  const second = select(bar, { name: "tr-second", label: t("tr.second"), options: [], onChange: (v) => onScene({ second: Number(v) }) });
  return {
    show(sc) {
      const option = (c) => ({ value: c, label: colourName(c) });
      target.setOptions(sc.colours.map(option), sc.target);
      second.setOptions(sc.colours.filter((c) => c !== sc.target).map(option), sc.second);
      second.el.hidden = ctx.settings.task !== "vector";
      count.set(ctx.settings.n_objects);
    },
    relabel() {
      count.relabel(t("tr.objects"));
      target.relabel(t("tr.target"));
      second.relabel(t("tr.second"));
    },
  };
}

/**
 * The panel in `parent`. onScene(partial): the reader changed the scene's settings (count,
 * colours, a block's position: `moved` true while dragging). Returns {draw(), drawPrediction(),
 * relabel()}; `prediction()` gives the run's latest answers.
 */
export function displayScene(parent, { ctx, t, prediction, onScene }) {
  const s = () => ctx.settings;
  const slotColours = ctx.constants.slot_colours;
  const names = ctx.constants.colours; // the trainer's colours by index (a scene message's numbers)
  const colourName = (c) => t(`colour.${names[c]}`);
  const left = html("div", { class: "panel scene-panel" }, parent);
  const svg = el("svg", { class: "scene", viewBox: "0 0 420 436", role: "group" }, left);
  const instruction = ctx.hl(el("text", { x: 34, y: 19, class: "instruction" }, svg), "q"); // the query's source
  const fit = () => fitInstruction(instruction, 420 - 34 - 4); // the viewBox's width, from x to its edge
  svg.addEventListener("svgscale", () => { // labels grew or shrank: fit the instruction, re-place the weights
    fit();
    drawAnswers();
  });
  const scene = tableScene(svg, { x: 34, y: 32, size: 360, tableCm: ctx.constants.table_cm });
  const controls = sceneControls(left, { ctx, t, colourName, onScene });
  const legend = sceneLegend(left, t);
  const hint = html("p", { class: "hint" }, left);
  const blockLabel = (c, pos) => t("tr.block", { colour: colourName(c), x: Math.round(pos[0]), y: Math.round(pos[1]) });

  function drawAnswers() {
    const sc = sceneFrom(s(), slotColours);
    drawPrediction(scene, { task: s().task, positions: sc.positions, secondIndex: sc.secondIndex,
      prediction: prediction() });
    svg.setAttribute("aria-label", t("tr.scene.aria", { n: sc.colours.length }));
  }

  function moveBlock(i) {
    // the rings follow the block at once; the answers follow when the server replies
    const pos = [...s().pos];
    const p = scene.positions()[i];
    [pos[2 * i], pos[2 * i + 1]] = [+p[0].toFixed(1), +p[1].toFixed(1)];
    onScene({ pos }, { moved: true });
  }

  function draw() {
    const sc = sceneFrom(s(), slotColours);
    controls.show(sc);
    setInstruction(instruction, s().task === "vector"
      ? t("tr.instruction.vector", { a: colourName(sc.target), b: colourName(sc.second) })
      : t("tr.instruction.fetch", { a: colourName(sc.target) }));
    fit();
    const focused = [...scene.blocks.children].indexOf(document.activeElement);
    scene.setBlocks(sc.colours.map((c, i) => ({
      pos: sc.positions[i], colour: objectColour(names[c]), label: blockLabel(c, sc.positions[i]),
      letter: t(`colour.${names[c]}.letter`), ink: DARK_INK.has(names[c]) ? "#1f2328" : "#fff",
    })), {
      onMove: moveBlock,
      onDrop: (i, p) => scene.handle(i)?.setAttribute("aria-label", blockLabel(sc.colours[i], p)),
      onActivate: (i) => onScene({ target: sc.colours[i] }),
    });
    if (focused >= 0) scene.handle(Math.min(focused, sc.colours.length - 1))?.focus({ preventScroll: true });
    hint.textContent = t("tr.hint");
    legend.update(s().task, Number(s().heads));
    drawAnswers();
  }

  return {
    /** The scene's message for the server: blocks in cm (2 decimals), colours, A and B. */
    message() {
      const sc = sceneFrom(s(), slotColours);
      return { type: "scene", positions: sc.positions.map((p) => p.map((v) => +v.toFixed(2))),
        colours: sc.colours, target: sc.target, second: sc.second };
    },
    draw,
    drawAnswers,
    relabel() {
      controls.relabel();
      draw();
    },
  };
}
