// FIG 2's sentences in HTML: symbols such as p_A, α_B, W_O and d_k are written with real
// subscripts (the scene's SVG instruction does the same with tspans, trainscene.js).

import { html } from "./svg.js";

const SYMBOL = /([pαWd]_[A-Za-z])/;

/** `text` into `node` (replacing its content), each "x_Y" as x with a subscript Y. */
export function withSubscripts(node, text) {
  node.replaceChildren();
  text.split(SYMBOL).forEach((part) => {
    if (!SYMBOL.test(part) || part.length !== 3) node.append(part);
    else {
      node.append(part[0]);
      html("sub", { text: part[2] }, node);
    }
  });
  return node;
}
