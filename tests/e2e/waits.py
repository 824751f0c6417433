"""Waiting for a page's state instead of a fixed time: on a loaded 2-core machine a fixed wait is
either too short (a flaky failure) or too long (minutes of the suite spent asleep).

What "nothing more will happen" means is read from the page itself: the live module's streams
(static/js/live.js) say whether one still waits for a first state, runs an HTTP read or holds
pushes, and the document's animations say whether anything still moves.
"""

from __future__ import annotations

WAIT = 15000

# No stream waits for its socket's first state (its fallback read is then cancelled), runs a
# read or holds pushes for one: from here only a new message can make the page read.
QUIET = ("() => window.Live && Live.streams.every("
         "(s) => !s.awaitingFirst && !s.resyncing && s.held.length === 0)")

# The page has done what it does by itself after loading: every socket it opened (its live
# stream, or the site socket every other page opens for announcements) is open, and each live
# stream holds its first state and runs no read. Unlike "networkidle" (500 ms without a request,
# a fixed wait per page) this holds as soon as it is true, and it waits for the sockets, which
# "networkidle" does not count. A page without the live module (the admin, Swagger UI) has
# done so at its load event.
LOADED = ("() => !window.Live || (Live.streams.length > 0 && Live.streams.every((s) =>"
          " s.socket && s.socket.readyState === WebSocket.OPEN"
          " && (!s.stateUrl || (!s.awaitingFirst && !s.resyncing && s.held.length === 0))))")

# Every finite animation and transition has run to its end (a CSS transition starts on the
# frame after its change, hence the frames first; an endless one, a pulse, is never waited for).
ANIMATIONS_DONE = """async () => {
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (let round = 0; round < 50; round++) {
    await frames();
    const moving = document.getAnimations().filter((a) => a.playState !== "finished"
        && a.playState !== "idle" && a.effect
        && a.effect.getComputedTiming().endTime !== Infinity);
    if (!moving.length) { return true; }
    await Promise.all(moving.map((a) => a.finished.catch(() => null)));
  }
  return false;
}"""

# The "m:ss" a countdown element shows, in seconds (NaN when it shows none).
SECONDS_SHOWN = """(selector) => {
  const m = /(\\d+):(\\d\\d)/.exec(document.querySelector(selector).innerText);
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
}"""


def settle(page, timeout: float = WAIT) -> None:
    """Until the page's live streams are quiet (``QUIET``)."""
    page.wait_for_function(QUIET, timeout=timeout)


def loaded(page, timeout: float = WAIT) -> None:
    """Until the page has opened its sockets and rendered its first live state (``LOADED``) and
    nothing on it moves any more (``animations_done``): what a screenshot or a check of the
    whole page needs."""
    page.wait_for_function(LOADED, timeout=timeout)
    animations_done(page)


def animations_done(page) -> None:
    """Until every finite animation of the page has finished (before a screenshot or measuring
    where something moved to)."""
    assert page.evaluate(ANIMATIONS_DONE), "the page kept starting new animations"


def seconds_shown(page, selector: str) -> float:
    return page.evaluate(SECONDS_SHOWN, selector)


def counted_down(page, selector: str, below: float, timeout: float = WAIT) -> None:
    """Until the countdown in ``selector`` shows less than ``below`` seconds."""
    page.wait_for_function(f"([sel, below]) => ({SECONDS_SHOWN})(sel) < below",
                           arg=[selector, below], timeout=timeout)
