"""One client live module: the socket, versions and resync live only in static/js/live.js,
and every live page loads it once, through base.html."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIVE_JS = ROOT / "static" / "js" / "live.js"
LIVE_TEMPLATES = ["kingofhill/host.html", "kingofhill/play.html", "kingofhill/projector.html",
                  "gorod/manage.html", "gorod/play.html", "gorod/statistics.html", "core/home.html"]


def scripts() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in (ROOT / "static").rglob("*.js")}


def test_only_the_live_module_opens_sockets_or_reads_state():
    for path, source in scripts().items():
        if path == LIVE_JS:
            continue
        rel = path.relative_to(ROOT)
        assert "WebSocket" not in source, f"{rel} opens its own socket"
        assert not re.search(r"\bfetch\s*\(", source), f"{rel} fetches by itself"
        assert not re.search(r"\.version\s*=", source), f"{rel} keeps its own version"
    live = LIVE_JS.read_text(encoding="utf-8")
    assert "new global.WebSocket" in live and "global.fetch(this.stateUrl" in live


def test_the_old_client_modules_and_globals_are_gone():
    assert not (ROOT / "static" / "js" / "livepage.js").exists()
    for source in scripts().values():
        for name in ("LiveSocket", "LivePage", "kothSocket", "kothApplyState"):
            assert name not in source


def test_every_live_page_loads_the_module_once_through_base_and_shows_one_status():
    base = (ROOT / "templates" / "base.html").read_text(encoding="utf-8")
    assert base.count("js/live.js") == 1
    for name in LIVE_TEMPLATES:
        template = (ROOT / "templates" / name).read_text(encoding="utf-8")
        assert "js/live.js" not in template and "livepage" not in template, name
        assert template.count('include "core/_live_status.html"') == 1, name


def test_the_projector_has_no_copy_of_the_holds_rule():
    source = (ROOT / "static" / "kingofhill" / "projector.js").read_text(encoding="utf-8")
    assert "HOLDS_TO_WIN" not in source
    assert "game.holds_to_win" in source
