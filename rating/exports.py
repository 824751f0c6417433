"""CSV and XLSX files of a ``rating.presentation.Table``: the CSV holds exactly the page's
texts, the XLSX typed cells (numbers as numbers, times as durations, names as text)."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

from django.http import HttpResponse
from openpyxl import Workbook
from openpyxl.styles import Font

from rating.presentation import Table

CSV_TYPE = "text/csv; charset=utf-8"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _attachment(response: HttpResponse, filename: str) -> HttpResponse:
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


def csv_response(table: Table, filename: str) -> HttpResponse:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([cell.text for cell in row.cells])
    # A BOM so that spreadsheet programs open the Cyrillic names as UTF-8.
    return _attachment(HttpResponse("\ufeff" + out.getvalue(), content_type=CSV_TYPE), filename)


def xlsx_bytes(table: Table, title: str) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = title[:31] or "Sheet"
    sheet.append(table.columns)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in table.rows:
        sheet.append([cell.value for cell in row.cells])
        for cell, source in zip(sheet[sheet.max_row], row.cells, strict=True):
            if isinstance(source.value, timedelta):
                cell.number_format = "[h]:mm:ss"
    for index, label in enumerate(table.columns, 1):
        width = max([len(str(label))] + [len(r.cells[index - 1].text) for r in table.rows])
        sheet.column_dimensions[sheet.cell(1, index).column_letter].width = min(40, width + 2)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def xlsx_response(table: Table, filename: str, title: str) -> HttpResponse:
    return _attachment(HttpResponse(xlsx_bytes(table, title), content_type=XLSX_TYPE), filename)
