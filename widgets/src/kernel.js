// The anywidget model a view is being mounted for. A view creates its transport (FIG 2's
// trainSocket) synchronously inside mount(); the adapter sets the model around that call, so
// two widgets of one figure on a notebook page, sharing this module, each get their own.

let current = null;

/** Run fn() with `model` as the current one (nested calls restore the previous). */
export function withModel(model, fn) {
  const previous = current;
  current = model;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

/** The model of the view being mounted; a transport made outside a mount is a bug. */
export function currentModel() {
  if (!current) throw new Error("attnlab widget: no model (a transport was made outside mount)");
  return current;
}
