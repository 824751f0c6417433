"""Tables as CSV and XLSX files: the one place that writes an exported cell, for every table
the site offers as a file (GoRoD statistics, game results, season and player standings).

Names come from captains, so a cell's text is hostile input: a team called
``=HYPERLINK("http://x","y")`` was a live formula in the organizer's spreadsheet. A text that
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (OWASP's list) is therefore
written as text: in the CSV with a leading single quote, in the XLSX as an explicit string
cell. Numbers that are numbers (``int``/``float``) stay numbers, negative ones too.

Durations are texts a person reads (``duration_text``): ``1:00`` is a minute, ``1:05:00`` an
hour and five minutes, ``−15:00`` minus a quarter of an hour. A spreadsheet's duration cell
cannot hold a negative time (a minute less was read back as ``-1 day, 23:59:00``), and one
column must not mix typed and text cells.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from django.http import HttpResponse
from openpyxl import Workbook
from openpyxl.styles import Font

CSV_TYPE = "text/csv; charset=utf-8"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
TIME_FORMAT = "yyyy-mm-dd hh:mm:ss"
#: what makes a spreadsheet program read a text as a formula (OWASP, "CSV injection")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
MINUS = "\u2212"  # not ``-``: a leading hyphen is a formula start


def is_formula_like(text: str) -> bool:
    return text.startswith(FORMULA_STARTS)


def csv_safe(text: str) -> str:
    """The text as a CSV cell a spreadsheet shows as text.

    >>> csv_safe('=HYPERLINK("http://x","y")'), csv_safe("Альфа")
    ('\\'=HYPERLINK("http://x","y")', 'Альфа')
    """
    return "'" + text if is_formula_like(text) else text


def duration_text(value: timedelta | float | int | None) -> str:
    """A duration (a ``timedelta`` or seconds) as a person reads it: ``M:SS`` under an hour,
    ``H:MM:SS`` from an hour on (hours pass 24), a minus sign before a negative one; whole
    seconds, rounded down in size.

    >>> duration_text(60), duration_text(-900), duration_text(timedelta(hours=25, seconds=7.9))
    ('1:00', '−15:00', '25:00:07')
    """
    if value is None:
        return ""
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    sign = MINUS if seconds < 0 else ""
    whole = int(abs(seconds))
    hours, rest = divmod(whole, 3600)
    if hours:
        return f"{sign}{hours}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{sign}{rest // 60}:{rest % 60:02d}"


def _plain(value):
    """A cell's value as it is written: texts, numbers, date-times; ``None`` for empty."""
    if isinstance(value, timedelta):
        return duration_text(value)
    if isinstance(value, bool):
        return str(value)
    return value


def csv_bytes(columns: Sequence[str], rows: Iterable[Sequence]) -> bytes:
    """UTF-8 with a byte-order mark, so spreadsheet programs read the Cyrillic names right."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for values in [columns, *rows]:
        out = []
        for value in map(_plain, values):
            if value is None:
                out.append("")
            elif isinstance(value, datetime):
                out.append(value.strftime("%Y-%m-%d %H:%M:%S"))
            elif isinstance(value, int | float):
                out.append(str(value))
            else:
                out.append(csv_safe(str(value)))
        writer.writerow(out)
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def xlsx_bytes(title: str, columns: Sequence[str], rows: Iterable[Sequence], *,
               freeze: str | None = None, widths: Sequence[int] | None = None) -> bytes:
    """One sheet: a bold header row, then the rows; ``widths`` in characters per column."""
    book = Workbook()
    sheet = book.active
    sheet.title = title[:31] or "Sheet"
    for number, values in enumerate([columns, *rows], start=1):
        for column, value in enumerate(map(_plain, values), start=1):
            if value is None:
                continue
            cell = sheet.cell(number, column)
            if isinstance(value, str):
                cell.value = value
                cell.data_type = "s"  # openpyxl makes a formula of any text starting with "="
            else:
                cell.value = value
                if isinstance(value, datetime):
                    cell.number_format = TIME_FORMAT
            if number == 1:
                cell.font = Font(bold=True)
    for column, width in enumerate(widths or (), start=1):
        sheet.column_dimensions[sheet.cell(1, column).column_letter].width = width
    if freeze:
        sheet.freeze_panes = freeze
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def attachment(content: bytes, content_type: str, filename: str) -> HttpResponse:
    """A download: saved under ``filename``, never sniffed into something else."""
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response
