"""The GoRoD statistics table as files: CSV and XLSX; and the night's bonus hints and messages
as the statistics page lists them (``notes``).

The table comes from the game record and the pure engine —
``services.game_record(gg)`` → ``rules.compute(rules.parse_record(record))`` →
``rules.statistics_table(results)`` — so a file says exactly what a replay of the record says.
One row per team (standings order); per level in game order: received, hints shown, closed,
how, time on level; then failed levels, the penalty for them, the organizer's penalties and
bonuses, the average-time adjustment, the timeout, the total and the place.

Times are in the game's zone (``TIME_ZONE``). In the XLSX, times are date-time cells and counts
and minutes are numbers; durations are texts a person reads (``core.exports.duration_text``).
The CSV writes times as ``YYYY-MM-DD HH:MM:SS``. Team names are written as text, never as a
formula (``core.exports``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.translation import gettext as _

from core import exports
from gorod import reads, rules, selectors, services, states
from gorod.models import Message

XLSX = exports.XLSX_TYPE
TIME_FORMAT = exports.TIME_FORMAT


def statistics(gg) -> dict:
    """The engine's statistics table of a started game, plus the game's failed-level penalty.
    ``DomainError`` before the start (there is no record yet)."""
    record = rules.parse_record(services.game_record(gg))
    table = rules.statistics_table(rules.compute(record))
    table["sliv_penalty_min"] = record.sliv_penalty_min
    # A level closed by an accepted photo reads «photo» here as on the screens (the record
    # keeps it as a code event).
    ids = {name: pk for pk, name in selectors.team_names(gg).items()}
    photos = selectors.photo_closed(gg.pk, selectors.levels(gg))
    for row in table["rows"]:
        states.mark_photos(row, table["levels"], ids.get(row["team"]), photos)
    return table


def _how(cell: dict | None) -> str:
    if cell is None:
        return ""
    return {"code": _("code"), "photo": _("photo"), "auto_sliv": _("failed (time out)"),
            "sliv": _("failed (organizer)"), "force_majeure": _("force majeure (organizer)"),
            None: _("open")}[cell["outcome"]]


def _status(status: str) -> str:
    return {"finished": _("finished"), "playing": _("playing"), "stopped": _("stopped"),
            "disqualified": _("disqualified")}.get(status, status)


def header(table: dict) -> list[str]:
    columns = [_("Place"), _("Team"), _("Status")]
    for level in table["levels"]:
        columns += [
            _("Level %(level)s: received") % {"level": level},
            _("Level %(level)s: hints") % {"level": level},
            _("Level %(level)s: closed") % {"level": level},
            _("Level %(level)s: how") % {"level": level},
            _("Level %(level)s: time on level") % {"level": level},
        ]
    columns += [_("Failed levels"), _("Penalty for failed levels (min)"),
                _("Organizer penalties (min)"), _("Bonuses (min)"),
                _("Average-time adjustment (min)"), _("Timeout (min)"), _("Total time")]
    return columns


def _local(moment: datetime | None) -> datetime | None:
    # Spreadsheets have no time zones: the game's wall-clock time, as on the screens, to the
    # second (the statistics' unit; a spreadsheet keeps milliseconds at best).
    if moment is None:
        return None
    return timezone.localtime(moment).replace(tzinfo=None, microsecond=0)


def _duration(seconds: float | None) -> timedelta | None:
    return None if seconds is None else timedelta(seconds=seconds)


def _minutes(seconds: float) -> float | int:
    value = round(seconds / 60, 4)
    return int(value) if float(value).is_integer() else value


def rows(table: dict) -> list[list]:
    """The table's rows as typed values: ``datetime`` (the game's wall-clock time),
    ``timedelta``, ``int``/``float`` minutes and texts; ``None`` for an empty cell."""
    out = []
    for row in table["rows"]:
        values: list = [row["place"], row["team"], _status(row["status"])]
        for cell in row["cells"]:
            if cell is None:
                values += [None] * 5
                continue
            values += [_local(cell["received_at"]), cell["hints_shown"],
                       _local(cell["closed_at"]), _how(cell), _duration(cell["time_s"])]
        values += [row["slivs"], _minutes(row["slivs"] * table["sliv_penalty_min"] * 60),
                   _minutes(row["penalty_s"]), _minutes(row["bonus_s"]),
                   _minutes(row["average_adjust_s"]), _minutes(row["timeout_s"]),
                   _duration(row["total_s"])]
        out.append(values)
    return out


def to_csv(table: dict) -> bytes:
    return exports.csv_bytes(header(table), rows(table))


def to_xlsx(table: dict) -> bytes:
    return exports.xlsx_bytes(_("Statistics"), header(table), rows(table), freeze="D2")


def notes(gg, *, private: bool) -> dict:
    """The bonus hints per level (in the game's level order) and the messages of a game, each
    sent one with how many of the teams it reached have seen it. ``private``: the organizer's
    view; otherwise [decision] a message to one team is left out (it is that team's)."""
    names = selectors.team_names(gg) if gg.team_order else {}
    order = [lv.label for lv in selectors.levels(gg)]
    by_level: dict[str, list[dict]] = {label: [] for label in order}
    messages = []
    for note in reads.messages(gg.pk):
        seen = sum(1 for moment in note.receipts.values() if moment is not None)
        row = {"text": note.text, "at": note.sent_at, "seen": seen, "of": len(note.receipts),
               "later": note.later}
        if note.bonus:
            by_level.setdefault(note.level, []).append(row)
            continue
        if note.audience == Message.Audience.TEAM and not private:
            continue
        row["to"] = (names.get(note.application_id, "") if note.audience == Message.Audience.TEAM
                     else _("the teams on level %(level)s") % {"level": note.level}
                     if note.audience == Message.Audience.LEVEL else _("all teams"))
        messages.append(row)
    return {"levels": [{"level": label, "hints": hints} for label, hints in by_level.items()
                       if hints], "messages": messages}
