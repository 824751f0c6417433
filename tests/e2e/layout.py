"""What the layout tests measure in Chromium: words split inside table cells, the cumulative
layout shift of a page while it loads and its live state arrives, and whether a box lies inside
the first screen."""

from __future__ import annotations

# For every word (split at spaces and hyphens) of every table cell: the line boxes its letters
# occupy. A word whose letters sit on two lines was split between two letters.
SPLIT_WORDS_JS = r"""
() => {
  const split = [];
  for (const cell of document.querySelectorAll("td, th")) {
    if (!cell.getClientRects().length) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /[^\s\-‐–—]+/g;
      let m;
      while ((m = re.exec(node.data))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                                                      .map(r => Math.round(r.bottom)));
        if (tops.size > 1) split.push(m[0]);
      }
    }
  }
  return split;
}
"""

# Installed before the page's own scripts (context.add_init_script): every layout shift the
# page makes from its first paint on, as Lighthouse sums them (shifts right after an input
# are the user's own and do not count).
OBSERVE_SHIFTS_JS = """
window.__shifts = [];
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__shifts.push({value: entry.value, nodes: entry.sources.map(s =>
      s.node ? (s.node.id || s.node.className || s.node.nodeName) : "")});
  }
}).observe({type: "layout-shift", buffered: true});
"""
SHIFT_TOTAL_JS = "() => window.__shifts.reduce((sum, s) => sum + s.value, 0)"
IMAGES_LOADED_JS = "() => [...document.images].every(image => image.complete)"


def layout_shift(page) -> tuple[float, list]:
    """The page's cumulative layout shift so far and the shifts that made it."""
    return page.evaluate(SHIFT_TOTAL_JS), page.evaluate("window.__shifts")


def in_first_screen(page, selector: str) -> bool:
    """Whether the element lies wholly inside the viewport with the page scrolled to its top."""
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return (box is not None and box["y"] >= 0 and box["x"] >= 0
            and box["y"] + box["height"] <= size["height"]
            and box["x"] + box["width"] <= size["width"])
