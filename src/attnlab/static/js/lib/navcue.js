// The contents bar scrolls sideways when its links do not fit (a narrow window, the longer
// English names): a fade on the side where more links hide says so. `data-overflow` on the nav
// ("start", "end", "both", or none) drives the fade in style.css; it follows scrolling, resizing
// and a language switch (the links' widths change).

/** Keep `nav`'s data-overflow up to date; returns update() for a caller that changed its text. */
export function watchOverflow(nav) {
  const update = () => {
    const hidden = nav.scrollWidth - nav.clientWidth;
    const before = nav.scrollLeft > 1;
    const after = nav.scrollLeft < hidden - 1;
    const side = before && after ? "both" : before ? "start" : after ? "end" : "";
    if (side) nav.dataset.overflow = side;
    else delete nav.dataset.overflow;
  };
  nav.addEventListener("scroll", update, { passive: true });
  new ResizeObserver(update).observe(nav);
  update();
  return update;
}
