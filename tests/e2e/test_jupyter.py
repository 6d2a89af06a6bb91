"""The tutorial notebook in a real JupyterLab (from PyPI, the [dev] extra) driven by Chromium.

A JupyterLab server is started on a free 127.0.0.1 port with a random token, its root a
temporary folder holding a copy of docs/notebooks/attention.ipynb, and its settings, data and
IPython folders there too (no news pop-up; every cell kept in the page, so off-screen cells can
be found; nothing written to the home folder). The test runs
the lookup cells, drags q in the widget with the mouse and reads the kernel's trait back by
running the check cell again; then runs the training cells and reads the view's error readout;
and tries what a notebook user hits: a refused assignment, array settings in their own shape,
the display's cost (no PNG drawn where the view shows, from a fresh kernel's first display),
upright labels, FIG 7's own words.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "attention.ipynb"
SETTINGS = {  # JupyterLab's user settings for this run only
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false"},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}
START_S = 60  # JupyterLab's first start builds nothing, but imports a lot on a busy machine
RESEND_S = 15  # a cell whose prompt has not changed (not even to [*]) this long was not sent
# each widget of the notebook → the source of the cell that shows it
WIDGET_CELLS = {
    "lookup": "lk = widgets.lookup(",
    "training": "tr = widgets.training(",
    "attention-map": "am = widgets.attention_map(",
    "scaling": "sc = widgets.scaling(",
    "position": "ps = widgets.position()",
    "depth": "dp = widgets.depth()",
    "kv-cache": "kv = widgets.kv_cache()",
    "tokens": "tk = widgets.tokens(",
}


# what a widget draws after its display, from the kernel's messages: FIG 2's first progress (its
# table), FIG 7's layer timing
LATER = {
    "training": "td.cm-cell[data-value]:not([data-value=''])",
    "tokens": ".layer-timing[data-n-timed]",
}


def frames(page: Any) -> None:
    """Two animation frames of the page: what it scheduled for the next one has run (as
    tests/e2e/waits.py, which jupyter_screenshots.py, a script, could not import from here)."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("JupyterLab did not start")


@contextmanager
def jupyterlab(home: Path) -> Iterator[str]:
    """JupyterLab on 127.0.0.1:<free port>, token-protected, everything of it under `home`;
    yields the notebook's URL."""
    (home / "root").mkdir()
    shutil.copy(NOTEBOOK, home / "root" / NOTEBOOK.name)
    for name, values in SETTINGS.items():
        path = home / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = free_port(), secrets.token_urlsafe(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTER_DATA_DIR": str(home / "data"), "IPYTHONDIR": str(home / "ipython"),
           "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces")}  # fmt: skip
    args = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
            "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={home / 'root'}", "--ServerApp.port_retries=0"]  # fmt: skip
    if os.geteuid() == 0:
        args.append("--allow-root")
    log = (home / "lab.log").open("wb")
    proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_up(f"{base}/api/status?token={token}", proc)
        yield f"{base}/lab/tree/{NOTEBOOK.name}?token={token}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with jupyterlab(tmp_path_factory.mktemp("jupyter")) as url:
        yield url


def cell(page: Any, text: str) -> Any:
    """The code cell whose source contains `text`."""
    return page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea", has_text=text))


def run(page: Any, text: str, timeout_s: float = 90) -> Any:
    """Run the code cell holding `text` and wait until its prompt shows a new execution count."""
    target = cell(page, text)
    prompt = target.locator(".jp-InputPrompt")
    before, pressed = prompt.inner_text(), 0.0
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        now = prompt.inner_text()
        if now != before and re.search(r"\[\d+\]", now):
            return target
        # a run sent before the kernel is connected is dropped: its prompt never shows [*]
        if now == before and time.monotonic() - pressed > RESEND_S:
            target.locator(".jp-InputArea-editor").click()
            page.keyboard.press("Shift+Enter")
            pressed = time.monotonic()
        time.sleep(0.2)
    raise AssertionError(f"the cell {text!r} did not finish in {timeout_s} s (prompt {now!r})")


def new_cell(page: Any, code: str) -> None:
    """A new code cell below the active one, typed and run."""
    count = page.locator(".jp-CodeCell").count()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.wait_for_function(f"document.querySelectorAll('.jp-CodeCell').length > {count}")
    page.keyboard.press("Enter")
    page.keyboard.insert_text(code)
    run(page, code)


def open_notebook(browser: Any, url: str, width: int = 1400, height: int = 1000) -> Any:
    """A page with the notebook open and its kernel ready; `widgets` imported. Below 1000 px
    the file browser is closed, as a reader on a small screen does: the notebook gets the width."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-CodeCell")
    # the kernel is connected once the status bar names it idle (the toolbar's indicator says
    # "idle" before the kernel is there, and a cell run then is dropped)
    page.locator(".jp-StatusBar-Widget", has_text="| Idle").wait_for(timeout=90_000)
    browser_tab = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if width < 1000 and browser_tab.count():  # (the workspace may remember it closed)
        browser_tab.click()
        page.locator("#jp-left-stack").wait_for(state="hidden")
    run(page, "from attnlab import widgets")
    return page


@pytest.fixture(scope="module")
def notebook(browser: Any, lab: str) -> Iterator[Any]:
    page = open_notebook(browser, lab)
    try:
        yield page
    finally:
        page.context.close()


# every element (not inside an SVG drawing or the screen-reader text) past the output area's right
# edge, every element that scrolls sideways, and every hidden one that is drawn all the same
OVERFLOW_JS = """(root) => {
  const area = root.closest(".jp-OutputArea-output") ?? root.parentElement;
  const right = area.getBoundingClientRect().right + 1;
  const name = (el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`;
  const seen = (el) => el.getClientRects().length && !el.closest(".sr-only")
    && !(el.closest("svg") && el.closest("svg") !== el);
  const out = [...root.querySelectorAll("*")].filter(seen)
    .filter((el) => el.getBoundingClientRect().right > right)
    .map((el) => `${name(el)} to ${Math.round(el.getBoundingClientRect().right)} px`);
  for (const el of [root, ...root.querySelectorAll("*")].filter(seen)) {
    const scrolls = getComputedStyle(el).overflowX !== "visible";
    if (scrolls && el.scrollWidth > el.clientWidth + 1) {
      out.push(`${name(el)} scrolls: ${el.scrollWidth} in ${el.clientWidth} px`);
    }
  }
  for (const el of root.querySelectorAll("[hidden]")) {
    if (el.getClientRects().length) out.push(`${name(el)} is shown though hidden`);
  }
  return [...new Set(out)].slice(0, 12);
}"""


def overflowing(widget: Any) -> list[str]:
    """What in a widget reaches past its output area's right edge, scrolls sideways, or is drawn
    though hidden (a notebook's styles are not the page's)."""
    return widget.evaluate(OVERFLOW_JS)


def weights_printed(target: Any) -> tuple[str, str]:
    text = target.locator(".jp-OutputArea-output").last.inner_text()
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0], lines[1]


def test_dragging_q_changes_the_kernels_weights(notebook: Any) -> None:
    page = notebook
    widget = run(page, "lk = widgets.lookup(").locator(".attnlab-nb")
    handle = widget.locator(".q-handle")
    handle.wait_for()
    page.wait_for_function("el => el.querySelectorAll('.bar-value').length === 5",
                           arg=widget.element_handle())  # fmt: skip
    before, same = weights_printed(run(page, "q_now = np.array(lk.settings"))
    assert same.endswith("True")

    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, 11):  # up and to the left, towards the green key: q turns and shortens
        page.mouse.move(x - 16 * i, y - 6 * i)
    page.mouse.up()
    # the last move is sent on the next frame (widgets/src/adapter.js), before the check cell's
    # run, on the same socket: the kernel takes it first
    frames(page)

    after, same = weights_printed(run(page, "q_now = np.array(lk.settings"))
    assert after != before, "the kernel's q and weights did not follow the drag"
    assert same.endswith("True"), "the kernel's weights are not attention() on its own q"
    assert not widget.locator(".fig-error").is_visible()


def test_a_refused_change_shows_the_params_message_in_the_figure(notebook: Any) -> None:
    page = notebook
    widget = cell(page, "lk = widgets.lookup(").locator(".attnlab-nb")
    error = widget.locator(".fig-error")
    # what the kernel does with a view's out-of-range value (a view's own controls stay in range)
    new_cell(page, 'lk._set_from_view({"q": [99.0, 0.0]}, 0)')
    error.wait_for(state="visible")
    assert "q: 99 is out of range; expected 2 numbers in [-8, 8]" in error.inner_text()
    new_cell(page, 'lk.settings = {"q": [1.0, 1.0]}')
    error.wait_for(state="hidden")  # a good change clears it


def output_of(page: Any, code: str) -> str:
    """What a new cell running `code` printed (its last output)."""
    new_cell(page, code)
    return cell(page, code).locator(".jp-OutputArea-output").last.inner_text()


def shown_lookup(page: Any) -> Any:
    """The lookup widget (its cell run when it has not been), drawn."""
    target = cell(page, "lk = widgets.lookup(")
    if not target.locator(".attnlab-nb .q-handle").count():
        run(page, "lk = widgets.lookup(")
    widget = target.locator(".attnlab-nb")
    widget.locator(".q-handle").wait_for()
    return widget


def test_a_refused_assignment_is_one_short_error_naming_the_setting(notebook: Any) -> None:
    # not ~65 lines of traitlets' frames, nor a __setattr__ frame: the one line naming q
    shown_lookup(notebook)
    text = output_of(notebook, 'lk.settings = {"q": [float("nan"), 1.0]}')
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines[0].startswith("ParamError: q: every number must be finite"), text
    assert len(lines) == 1, text


def test_keys_are_assigned_and_read_in_the_shape_lookup_takes(notebook: Any) -> None:
    widget = shown_lookup(notebook)
    first_key = widget.locator(".key-handle").first
    before = first_key.get_attribute("transform")
    shape = output_of(notebook, 'lk.settings = {"keys": -K}; print(np.shape(lk.settings["keys"]))')
    assert shape.strip() == "(5, 2)"
    notebook.wait_for_function("([el, was]) => el.getAttribute('transform') !== was",
                               arg=[first_key.element_handle(), before])  # fmt: skip
    assert not widget.locator(".fig-error").is_visible()


FRESH_CELLS = [  # a fresh kernel's first widget display, in the cell that imports the widgets
    """import time; c0 = time.process_time()
from attnlab import widgets
from attnlab.widgets.base import FigureWidget
drawn, png = [], FigureWidget.figure_png  # every PNG drawn is counted
FigureWidget.figure_png = lambda self: drawn.append(self.FIGURE) or png(self)
c1 = time.process_time(); display(widgets.depth()); first = time.process_time() - c1""",
    "c1 = time.process_time(); display(widgets.depth()); later = time.process_time() - c1",
    "print('pngs drawn', len(drawn), f'display cpu first {first:.3f} s later {later:.3f} s')",
]


def put_notebook(lab_url: str, name: str, sources: list[str]) -> str:
    """A notebook of code cells `sources` beside the tutorial (JupyterLab's contents API, the
    tutorial's kernel); its URL."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata = nbformat.read(NOTEBOOK, as_version=4).metadata
    base, token = lab_url.split("/lab/tree/")[0], lab_url.split("token=")[1]
    body = json.dumps({"type": "notebook", "format": "json", "content": nb}).encode("utf-8")
    request = urllib.request.Request(f"{base}/api/contents/{name}", data=body, method="PUT",
                                     headers={"Authorization": f"token {token}",
                                              "Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status in (200, 201)
    return f"{base}/lab/tree/{name}?token={token}"


def test_a_fresh_kernels_first_display_draws_no_png_in_jupyterlab(browser: Any, lab: str):
    # the first display cannot wait for a view to say it is drawn (it would answer after the
    # cell): the kernel knows from the cell's request that a person's front-end asked
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        page.goto(put_notebook(lab, "fresh.ipynb", FRESH_CELLS))
        # the workspace opens the tutorial first: the status bar names fresh.ipynb, then its kernel
        page.locator(".jp-StatusBar-Widget", has_text="fresh.ipynb").wait_for(timeout=90_000)
        page.locator(".jp-StatusBar-Widget", has_text="| Idle").wait_for(timeout=90_000)
        shown = run(page, "drawn, png = [], FigureWidget").locator(".attnlab-nb")
        shown.locator(".fig-body > *").first.wait_for()  # the view is drawn: a live front-end
        run(page, "later = time.process_time() - c1")
        text = run(page, "print('pngs drawn'").locator(".jp-OutputArea-output").last.inner_text()
        assert text.startswith("pngs drawn 0 "), text
        print(text)  # the CPU each display took in the kernel, for the report
    finally:
        context.close()


def test_one_letter_key_labels_stand_upright(notebook: Any) -> None:
    new_cell(notebook, 'am2 = widgets.attention_map([[0.25, 0.75]], keys=["x", "y"]); am2')
    widget = cell(notebook, "am2 = widgets.attention_map(").locator(".attnlab-nb")
    labels = widget.locator("text.tick-label")
    labels.first.wait_for()
    assert [labels.nth(i).get_attribute("transform") for i in range(2)] == [None, None]


def test_training_in_the_kernel_draws_the_curve_below_2_cm(notebook: Any) -> None:
    page = notebook
    widget = run(page, "tr = widgets.training(").locator(".attnlab-nb")
    widget.locator("button[data-role='train']").wait_for()
    out = run(page, "tr.train(600)", timeout_s=120).locator(".jp-OutputArea-output").last
    assert "attention below 2 cm at step" in out.inner_text()
    readout = widget.locator("dd[data-key='attn']")
    page.wait_for_function(
        "el => Number(el.dataset.value) < 2", arg=readout.element_handle(), timeout=30_000
    )
    step = widget.locator("dd[data-key='step']")
    assert int(step.get_attribute("data-value")) == 600
    assert widget.locator(".curves-panel path").count() > 0
    # the colour-match table follows the kernel's model (fetch at 600 steps: the diagonal); the
    # seed strip needs the page's claim values, which a notebook does not measure: hidden
    peaks = widget.locator("td.cm-cell.is-peak")
    assert peaks.count() == 6
    assert all(
        c["row"] == c["col"] for c in peaks.evaluate_all("cs => cs.map((c) => ({...c.dataset}))")
    )
    assert widget.locator("[data-role=seed-strip]").is_hidden()
    # and the view's own buttons train in the kernel: "+25 steps", then Train and Pause
    widget.locator(".actions button", has_text="+25 steps").click()
    page.wait_for_function("el => el.dataset.value === '625'", arg=step.element_handle())
    train = widget.locator("button[data-role='train']")
    train.click()
    page.wait_for_function("el => Number(el.dataset.value) > 700", arg=step.element_handle())
    train.click()  # Pause
    page.wait_for_function("el => el.getAttribute('aria-pressed') === 'false'",
                           arg=train.element_handle())  # fmt: skip
    paused = step.get_attribute("data-value")
    # the paused state is the run's last message (widgets/training.py); the kernel's own step,
    # printed after it, says that nothing was trained since
    assert output_of(page, "print(tr.session.step)").strip() == paused
    assert step.get_attribute("data-value") == paused


@pytest.mark.parametrize("width", [768, 390])
def test_every_widget_fits_its_cell_on_a_tablet_and_a_phone(browser: Any, lab: str, width: int):
    # the cell is narrower than the screen (a phone's: ~270 px): the page's narrow layouts follow
    # the widget's width (container queries) and the controls wrap, nothing is cut or scrolls
    page = open_notebook(browser, lab, width=width, height=900)
    try:
        for name, source in WIDGET_CELLS.items():
            widget = run(page, source, timeout_s=120).locator(".attnlab-nb").last
            widget.locator(".fig-body > *").first.wait_for()  # drawn with the kernel's data
            if name in LATER:
                widget.locator(LATER[name]).first.wait_for(timeout=60_000)
            frames(page)  # the drawings rescaled to the cell (svg.js)
            assert overflowing(widget) == [], (name, width)
    finally:
        page.context.close()


def test_fig7_times_a_layer_in_the_kernel(notebook: Any) -> None:
    # the page asks its server; the widget asks the kernel (there is no lesson server here)
    widget = run(notebook, "tk = widgets.tokens(").locator(".attnlab-nb")
    timing = widget.locator(".layer-timing")
    notebook.wait_for_function(
        "el => Number(el.dataset.nTimed) > 0", arg=timing.element_handle(), timeout=60_000
    )
    assert "not measured" not in timing.inner_text()
    assert int(timing.get_attribute("data-n-timed")) <= 401  # the notebook's n, rounded down
    # and it says so: the kernel measures and cuts the frame, in both languages
    assert "Measured in this kernel" in timing.inner_text()
    assert "server" not in widget.text_content()
    new_cell(notebook, 'tkz = widgets.tokens(lang="zh"); tkz')
    zh = cell(notebook, "tkz = widgets.tokens(").locator(".attnlab-nb")
    timed = zh.locator(".layer-timing").element_handle()
    notebook.wait_for_function("el => Number(el.dataset.nTimed) > 0", arg=timed, timeout=60_000)
    assert "在本内核中实测" in zh.text_content() and "服务器" not in zh.text_content()
