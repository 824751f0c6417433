"""Test-only harness for the projector page: fake public states and the rendered template.

The projector is a pure function of the public state ``{"game", "teams", "board", "question"}``
(the shape the backend publishes). This module builds realistic states for any number of teams
and renders ``templates/kingofhill/projector.html`` with Django's template engine, so a browser test can
serve the HTML (``page.route``) from the real ASGI server, whose /static/ serves the JS and CSS.

The page is rendered in Russian, the audience's language, from the project's own catalogue.
"""

from __future__ import annotations

import colorsys
import random
from pathlib import Path
from types import SimpleNamespace

from django.utils import translation

NAMES = [
    "Альфа", "Бета", "Гамма", "Дельта", "Эрудиты", "Совы", "Знатоки", "Ёжики в тумане",
    "Тамбовские волки", "Кот Шрёдингера", "Пятый элемент", "Без названия", "Шестое чувство",
    "Ноосфера", "Синхрофазотрон", "Три с половиной", "Мозговой штурм", "Гипотенуза", "Лисички",
    "Квазар", "Сфинкс", "Архимед", "Полный вперёд", "Чёрный ящик", "Сова Минервы", "Орион",
    "Вектор", "Интеграл", "Капибары", "Северное сияние", "Импульс", "Ламповые", "Гуманитарии",
    "Физтех", "Кварк", "Дилетанты", "Сборная мира", "Почти гении", "Зелёный слоник", "Мираж",
    "Меридиан", "Эврика", "Парадокс", "Тёмные лошадки", "Пингвины", "Сигма", "Омега", "Бруталы",
    "Ва-банк", "Экватор", "Пегас", "Феникс", "Логос", "Марафон", "Алгоритм", "Атланты",
    "Космос", "Полиглоты", "Аксиома", "Квант", "Резонанс", "Навигаторы", "Спектр", "Зенит",
]

COLOURS = ["#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
           "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3",
           "#808000", "#ffd8b1", "#000075", "#808080", "#ffffff", "#ff6f61", "#6b5b95", "#88b04b"]



def team_colours(n: int) -> list[str]:
    if n <= len(COLOURS):
        return COLOURS[:n]
    out = []
    for i in range(n):  # evenly spread hues, alternating lightness so neighbours differ
        r, g, b = colorsys.hls_to_rgb((i * 0.61803398875) % 1, 0.45 + 0.15 * (i % 3) / 2, 0.85)
        out.append(f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}")
    return out


def team_names(n: int) -> list[str]:
    return [NAMES[i] if i < len(NAMES) else f"Команда {i + 1}" for i in range(n)]


def standings(rows: list[dict], king: str | None, order: list[str]) -> list[dict]:
    """King first, then step, then points, then registration order; places 1, 2, 3, …"""
    rows = sorted(rows, key=lambda r: (r["team"] != king, -r["step"], -r["points"], order.index(r["team"])))
    return [{**r, "place": i + 1} for i, r in enumerate(rows)]


def mid_game_state(n: int, summit: int = 7, seed: int | None = None, question: int = 13,
                   partner: bool = True) -> dict:
    """A King on the summit holding for one move, two (three for many teams) revolutionaries on
    S-1, a few jumps declared, the others spread over the slope; a question being answered."""
    rnd = random.Random(n if seed is None else seed)
    names = team_names(n)
    king = names[2 % n]
    n_rev = 0 if n < 3 else (3 if n > 32 else 2 if n > 3 else 1)
    rebels = [names[(2 + 1 + k * max(1, n // 4)) % n] for k in range(n_rev)]
    rebels = [r for r in dict.fromkeys(rebels) if r != king]
    rows = []
    for name in names:
        if name == king:
            step, points = summit, summit + 6
        elif name in rebels:
            step, points = summit - 1, summit + rnd.randint(0, 4)
        else:
            step = rnd.choice(range(0, summit - 1)) if summit > 1 else 0
            points = step + rnd.randint(0, 3)
        rows.append({"team": name, "step": step, "points": points,
                     "revolution_right": name not in rebels})
    board_rows = standings(rows, king, names)
    jumpers = [r["team"] for r in board_rows if 0 < r["step"] < summit - 1][: max(1, n // 8)]
    return {
        "game": {"id": 5, "title": "Царь Горы — финал сезона", "status": "running", "summit": summit,
                 "main_questions": 30, "reserve_questions": 5, "holds_to_win": 3},
        "teams": [{"name": name, "colour": colour} for name, colour in zip(names, team_colours(n), strict=True)],
        "board": {
            "summit": summit, "question": question - 1, "finished": False, "finish_reason": None,
            "winner": None, "king": king, "king_holds": 1, "teams": board_rows,
            "moves": [{"question": q, "partner": q == 5, "effective": {}, "ignored": {},
                       "correct": names[: (q * 7) % n + 1], "king": king if q >= question - 2 else None}
                      for q in range(1, question)],
        },
        "question": {"number": question, "phase": "answering", "partner": partner,
                     "answered": (n * 5) // 8, "total": n, "revolutions": rebels, "jumps": jumpers},
    }


def finished_state(n: int, summit: int = 7, reason: str = "king_held") -> dict:
    state = mid_game_state(n, summit, question=17, partner=False)
    board = state["board"]
    board.update(question=17, finished=True, finish_reason=reason, winner=board["king"], king_holds=3)
    state["game"]["status"] = "finished"
    state["question"] = None
    return state


def move(state: dict, team: str, step: int, points: int | None = None, king: str | None = ...,
         question: dict | None = ...) -> dict:
    """A copy of ``state`` in which ``team`` stands on ``step`` (standings re-sorted)."""
    import copy

    new = copy.deepcopy(state)
    board = new["board"]
    if king is not ...:
        board["king"] = king
        board["king_holds"] = 0
    for row in board["teams"]:
        if row["team"] == team:
            row["step"] = step
            if points is not None:
                row["points"] = points
        if row["team"] != board["king"] and row["step"] >= board["summit"]:
            row["step"] = board["summit"] - 1  # a deposed King goes to S-1
    names = [t["name"] for t in new["teams"]]
    board["teams"] = standings([{k: v for k, v in r.items() if k != "place"} for r in board["teams"]],
                               board["king"], names)
    board["question"] += 1
    if question is not ...:
        new["question"] = question
    return new


def render_projector(state: dict, version: int = 1, game_id: int = 5) -> str:
    """The projector page's HTML for ``state``, as the real view would render it."""
    from django.template.loader import render_to_string

    game = SimpleNamespace(id=game_id, game=SimpleNamespace(title=state["game"].get("title", "")))
    context = {
        "game": game,
        "state_json": {"version": version, "state": state},
        # nothing answers on this path in the harness: the page must stay calm and show a dot
        "ws_path": f"/ws/koth/{game_id}/projector-harness/",
        "state_url": f"/koth/api/games/{game_id}/state/",
    }
    with translation.override("ru"):
        return render_to_string("kingofhill/projector.html", context)


def write_projector(path: Path, state: dict, version: int = 1) -> Path:
    path.write_text(render_projector(state, version), encoding="utf-8")
    return path
