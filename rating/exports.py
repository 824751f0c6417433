"""CSV and XLSX files of a ``rating.presentation.Table``: the page's texts, with numbers as
numbers and names as texts (never formulas), written by ``core.exports``."""

from __future__ import annotations

from datetime import timedelta

from django.http import HttpResponse

from core import exports
from rating.presentation import Table

CSV_TYPE = exports.CSV_TYPE
XLSX_TYPE = exports.XLSX_TYPE


def _values(table: Table) -> list[list]:
    # A number stays a number (a negative deduction too); anything else is the page's text.
    return [[cell.value if isinstance(cell.value, int | float | timedelta)
             and not isinstance(cell.value, bool) else cell.text for cell in row.cells]
            for row in table.rows]


def csv_response(table: Table, filename: str) -> HttpResponse:
    return exports.attachment(exports.csv_bytes(table.columns, _values(table)), CSV_TYPE,
                              filename)


def xlsx_bytes(table: Table, title: str) -> bytes:
    widths = [min(40, max([len(str(label))] + [len(r.cells[index].text) for r in table.rows]) + 2)
              for index, label in enumerate(table.columns)]
    return exports.xlsx_bytes(title, table.columns, _values(table), widths=widths)


def xlsx_response(table: Table, filename: str, title: str) -> HttpResponse:
    return exports.attachment(xlsx_bytes(table, title), XLSX_TYPE, filename)
