"""The question bank's file formats: what the host prepares before the evening, read from a
CSV, XLSX or plain-text file into checked items, all or nothing.

* **CSV / XLSX** (first sheet): a header row naming the columns — ``text`` (required),
  ``answer``, ``variants`` (several separated by ``|`` or ``;``), ``partner`` (yes/no),
  ``note`` (for the host); Russian headers work too (``вопрос``, ``ответ``, ``зачёт``,
  ``партнёр``, ``комментарий``). Empty rows are skipped.
* **Plain text**: one question per block, blocks separated by an empty line; lines starting
  with ``Ответ:``/``Answer:``, ``Зачёт:``/``Variants:``, ``Комментарий:``/``Note:`` fill those
  fields, a line ``Партнёр``/``Partner`` marks a partner question, every other line is the text
  (a leading ``Вопрос 3.`` / ``Question 3:`` is dropped).

Every problem is collected (``BankError.problems``, one sentence each, naming the row or
block) so the host fixes the file once; nothing is half-imported. Rows are read as a stream
and reading stops at the question limit; text no database stores (NUL, ``core.text``) is a
problem of its row.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from django.utils.translation import gettext as _

from core.errors import DomainError
from core.text import find_unstorable_text

MAX_BYTES = 1024 * 1024  # thousands of questions; a bigger file is not a question list
MAX_QUESTIONS = 500
#: rows read at most, empty ones included: a sheet of a million rows is refused here, read
#: as a stream, instead of unpacked whole first
MAX_ROWS = 10 * MAX_QUESTIONS
#: what the workbook's parts other than its sheets (shared strings, styles) may unpack to:
#: those are read whole, so a small file must not unpack to a gigabyte of strings
MAX_UNPACKED_BYTES = 32 * 1024 * 1024
TEXT_MAX = 5000
ANSWER_MAX = 300
NOTE_MAX = 2000

COLUMNS = {
    "text": ("text", "question", "вопрос", "текст", "текст вопроса"),
    "answer_key": ("answer", "answer key", "answer_key", "key", "ответ"),
    "variants": ("variants", "accepted", "accepted variants", "зачёт", "зачет", "варианты"),
    "partner": ("partner", "партнёр", "партнер", "вопрос от партнёра", "вопрос от партнера"),
    "note": ("note", "comment", "host note", "комментарий", "заметка", "примечание"),
}
YES = {"1", "yes", "y", "true", "+", "x", "да", "д", "п", "партнёр", "партнер", "partner"}
NO = {"", "0", "no", "n", "false", "-", "нет", "н"}


@dataclass(frozen=True)
class Item:
    text: str
    answer_key: str = ""
    variants: tuple[str, ...] = ()
    partner: bool = False
    note: str = ""


class BankError(DomainError):
    """A file that cannot be imported; ``problems`` lists every reason (the message joins them)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def split_variants(value: str) -> tuple[str, ...]:
    """``"Пушкин | А. С. Пушкин; Pushkin"`` → the three variants, trimmed, empty ones dropped."""
    return tuple(v.strip() for v in re.split(r"[|;\n]", value or "") if v.strip())


def check_item(text: str, answer_key: str = "", variants=(), partner: bool = False,
               note: str = "") -> tuple[Item | None, list[str]]:
    """One question as typed (a form or a file row): the item, or the problems with it."""
    problems = []
    text = (text or "").strip()
    answer_key = " ".join((answer_key or "").split())
    variants = tuple(" ".join(v.split()) for v in variants if v and v.strip())
    note = (note or "").strip()
    if not text:
        problems.append(_("the question text is empty"))
    if len(text) > TEXT_MAX:
        problems.append(_("the question text is longer than %(max)d characters")
                        % {"max": TEXT_MAX})
    if len(answer_key) > ANSWER_MAX or any(len(v) > ANSWER_MAX for v in variants):
        problems.append(_("an answer or a variant is longer than %(max)d characters")
                        % {"max": ANSWER_MAX})
    if len(note) > NOTE_MAX:
        problems.append(_("the note is longer than %(max)d characters") % {"max": NOTE_MAX})
    if problems:
        return None, problems
    return Item(text, answer_key, variants, bool(partner), note), []


def parse_file(name: str, data: bytes) -> list[Item]:
    """The questions of an uploaded file (by its extension), or ``BankError``."""
    if len(data) > MAX_BYTES:
        raise BankError([_("The file is too big: at most %(mb)d MB.")
                         % {"mb": MAX_BYTES // (1024 * 1024)}])
    if not data.strip():
        raise BankError([_("The file is empty.")])
    kind = name.rsplit(".", 1)[-1].casefold() if "." in name else ""
    if kind == "xlsx":
        items = _rows(_xlsx_rows(data))
    elif kind in ("csv", "txt", "text"):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise BankError([_("The file is not UTF-8 text: save it as UTF-8 (in a "
                               "spreadsheet: “CSV UTF-8”).")]) from None
        items = _rows(_csv_rows(text)) if kind == "csv" else _blocks(text)
    else:
        raise BankError([_("Unknown file type “%(name)s”: use .csv, .xlsx or .txt.")
                         % {"name": name}])
    if not items:
        raise BankError([_("The file has no questions.")])
    if len(items) > MAX_QUESTIONS:
        raise _too_many_rows()
    return items


def _too_many_rows() -> BankError:
    return BankError([_("Too many questions: at most %(max)d in one game.")
                      % {"max": MAX_QUESTIONS}])


def _bounded(rows) -> list[list[str]]:
    """The rows of a stream, refused as soon as there are more than a bank can hold: the
    header and ``MAX_QUESTIONS`` non-empty rows, ``MAX_ROWS`` in all."""
    out, filled = [], 0
    for row in rows:
        out.append(row)
        filled += any(cell.strip() for cell in row)
        if filled > MAX_QUESTIONS + 1 or len(out) > MAX_ROWS:
            raise _too_many_rows()
    return out


def _csv_rows(text: str) -> list[list[str]]:
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        return _bounded(csv.reader(io.StringIO(text), dialect))
    except csv.Error as exc:
        raise BankError([_("The CSV file cannot be read: %(why)s") % {"why": exc}]) from None


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _first_sheet(data: bytes):
    """The workbook's first sheet as a stream of rows (openpyxl's read-only sheet), never read
    whole: openpyxl's own read-only mode scans a sheet to its end for its size when the file
    does not state it, and a 210 KB file of 1.5 M rows took 33 s that way."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet

    class Sheet(ReadOnlyWorksheet):
        def _get_size(self):
            pass  # unknown: the rows are counted as they stream (``_bounded``)

    class Reader(ExcelReader):
        sheet = None

        def read_worksheets(self):
            for sheet, rel in self.parser.find_sheets():
                if rel.target in self.valid_files and "chartsheet" not in rel.Type:
                    self.sheet = Sheet(self.wb, sheet.name, rel.target, self.shared_strings)
                    return

    reader = Reader(io.BytesIO(data), read_only=True, data_only=True)
    reader.read()
    if reader.sheet is None:
        raise IndexError("no worksheet")
    return reader.sheet, reader.archive


def _xlsx_rows(data: bytes) -> list[list[str]]:
    from xml.etree.ElementTree import ParseError
    from zipfile import BadZipFile, ZipFile

    invalid = BankError([_("The file is not a valid XLSX workbook.")])
    try:
        parts = ZipFile(io.BytesIO(data)).infolist()
    except (BadZipFile, OSError, ValueError):
        raise invalid from None
    if sum(p.file_size for p in parts if not p.filename.startswith("xl/worksheets/")
           ) > MAX_UNPACKED_BYTES:
        raise BankError([_("The workbook unpacks to more than %(mb)d MB: it is not a question "
                           "list.") % {"mb": MAX_UNPACKED_BYTES // (1024 * 1024)}])
    try:
        sheet, archive = _first_sheet(data)
        try:
            return _bounded([_cell(v) for v in row] for row in sheet.iter_rows(values_only=True))
        finally:
            archive.close()
    except (BadZipFile, KeyError, ValueError, OSError, IndexError, TypeError, ParseError):
        raise invalid from None


def _header(row: list[str]) -> dict[str, int]:
    known = {alias: field for field, aliases in COLUMNS.items() for alias in aliases}
    found: dict[str, int] = {}
    unknown = []
    for i, title in enumerate(row):
        key = " ".join(title.split()).casefold().rstrip(":")
        if not key:
            continue
        field = known.get(key)
        if field is None:
            unknown.append(title.strip())
        elif field in found:
            raise BankError([_("The column “%(name)s” appears twice.") % {"name": title}])
        else:
            found[field] = i
    expected = ", ".join(aliases[0] for aliases in COLUMNS.values())
    if unknown:
        raise BankError([_("Unknown columns: %(names)s. The first row must name the columns: "
                           "%(expected)s.") % {"names": ", ".join(unknown),
                                               "expected": expected}])
    if "text" not in found:
        raise BankError([_("No “text” column. The first row must name the columns: "
                           "%(expected)s.") % {"expected": expected}])
    return found


def _rows(rows: list[list[str]]) -> list[Item]:
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return []
    columns = _header(rows[0])
    items, problems = [], []
    for number, row in enumerate(rows[1:], start=2):
        cell = {f: (row[i] if i < len(row) else "") for f, i in columns.items()}
        partner = cell.get("partner", "").strip().casefold()
        row_problems = []
        unstorable = find_unstorable_text(row)
        if unstorable:
            row_problems.append(_("a cell %(why)s") % {"why": unstorable})
        if partner not in YES and partner not in NO:
            row_problems.append(_("partner is “yes” or “no”, not “%(value)s”")
                                % {"value": cell["partner"]})
        item, found = check_item(cell.get("text", ""), cell.get("answer_key", ""),
                                 split_variants(cell.get("variants", "")), partner in YES,
                                 cell.get("note", ""))
        row_problems += found
        if row_problems:
            problems += [_("row %(n)d: %(why)s") % {"n": number, "why": p} for p in row_problems]
        else:
            items.append(item)
    if problems:
        raise BankError(problems)
    return items


FIELD_LINE = re.compile(
    r"^\s*(?P<field>ответ|answer|зач[её]т|variants|accepted|комментарий|note|comment)\s*:\s*"
    r"(?P<value>.*)$", re.IGNORECASE)
PARTNER_LINE = re.compile(r"^\s*(партн[её]р|partner)\s*[.!:]?\s*(да|yes)?\s*$", re.IGNORECASE)
NUMBER_PREFIX = re.compile(r"^\s*(вопрос|question)\s*\d+\s*[.:)]\s*", re.IGNORECASE)


def _blocks(text: str) -> list[Item]:
    items, problems = [], []
    blocks = [b for b in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if b.strip()]
    if len(blocks) > MAX_QUESTIONS:
        raise _too_many_rows()
    for number, block in enumerate(blocks, start=1):
        unstorable = find_unstorable_text(block)
        if unstorable:
            problems.append(_("question %(n)d: %(why)s") % {"n": number, "why": unstorable})
            continue
        lines, key, variants, note, partner = [], "", (), "", False
        for line in block.split("\n"):
            field = FIELD_LINE.match(line)
            if field:
                name, value = field["field"].casefold(), field["value"].strip()
                if name in ("ответ", "answer"):
                    key = value
                elif name in ("комментарий", "note", "comment"):
                    note = value
                else:
                    variants = split_variants(value)
            elif PARTNER_LINE.match(line):
                partner = True
            else:
                lines.append(line)
        body = "\n".join(lines).strip()
        body = NUMBER_PREFIX.sub("", body, count=1)
        item, found = check_item(body, key, variants, partner, note)
        if found:
            problems += [_("question %(n)d: %(why)s") % {"n": number, "why": p} for p in found]
        else:
            items.append(item)
    if problems:
        raise BankError(problems)
    return items
