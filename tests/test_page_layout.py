"""How the page is laid out: what a reader sees without scrolling, panels that use the width,
flag explanations that are never cut off.

No fixed sleeps and no clocks: every wait is for the state the page must reach.
"""

from __future__ import annotations

import pytest

from tests.pagekit import page_fixtures

pytestmark = pytest.mark.browser

site, app = page_fixtures()

# Whether an element lies wholly inside the window (the page not scrolled).
ON_SCREEN = """sel => {
    const e = document.querySelector(sel);
    if (!e) return false;
    const box = e.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && box.top >= 0 && box.left >= 0 &&
           box.bottom <= window.innerHeight && box.right <= window.innerWidth;
}"""

# Whether an element's first line is inside the window (a chunk's text may run on below).
STARTS_ON_SCREEN = """sel => {
    const e = document.querySelector(sel);
    if (!e) return false;
    const box = e.getClientRects()[0];
    return !!box && box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
}"""


def test_a_laptop_screen_shows_chunks_without_scrolling(app):
    # 1280 x 720: the settings sit beside the chunks instead of above them.
    app.page.set_viewport_size({"width": 1280, "height": 720})
    app.page.reload()
    app.wait_ready()
    assert app.page.evaluate("window.scrollY") == 0
    assert app.page.evaluate(ON_SCREEN, "#cards .card[data-chunk-index='0']")
    assert app.page.evaluate(STARTS_ON_SCREEN, "#chunk-0")
    # The document box and the first settings are on screen too.
    assert app.page.evaluate(ON_SCREEN, "#document")
    assert app.page.evaluate(ON_SCREEN, "#strategy")


def test_full_width_panels_leave_no_empty_column(app):
    app.page.set_viewport_size({"width": 1280, "height": 720})
    widths = app.page.evaluate("""() => Object.fromEntries(['compare', 'questions-panel', 'advice-panel', 'export']
        .map(id => [id, Math.round(document.getElementById(id).getBoundingClientRect().width)]))""")
    assert len(set(widths.values())) == 1, widths


def test_a_flags_explanation_is_never_cut_off_by_a_short_list(app):
    # One chunk, one card: its flag's explanation still shows whole inside the list.
    app.set_text("A document that ends without a stop")
    badge = app.page.locator("#cards .flag").first
    badge.hover()
    tip = badge.locator(".tip")
    assert tip.is_visible()
    inside = app.page.evaluate("""() => {
        const list = document.getElementById('cards').getBoundingClientRect();
        const tip = document.querySelector('#cards .flag .tip').getBoundingClientRect();
        return tip.top >= list.top && tip.bottom <= list.bottom && tip.left >= list.left && tip.right <= list.right;
    }""")
    assert inside
