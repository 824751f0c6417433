"""The question bank's file formats (``kingofhill.bank``): CSV, XLSX and plain text read into
checked questions, and every bad file refused whole with a clear reason."""

from __future__ import annotations

import io

import pytest
from openpyxl import Workbook

from kingofhill import bank
from kingofhill.bank import BankError, Item, parse_file


def xlsx(rows) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


CSV = ("text,answer,variants,partner,note\n"
       "Кто написал «Онегина»?,Пушкин,А. С. Пушкин | Pushkin,нет,\n"
       "\n"
       '"Столица Франции,\nодним словом",Париж,,да,читать медленно\n').encode()

TEXT = """Вопрос 1. Кто написал «Онегина»?
Ответ: Пушкин
Зачёт: А. С. Пушкин; Pushkin

Столица Франции?
Ответ: Париж
Партнёр
Комментарий: читать медленно
""".encode()

EXPECTED = [
    Item("Кто написал «Онегина»?", "Пушкин", ("А. С. Пушкин", "Pushkin"), False, ""),
    Item("Столица Франции,\nодним словом", "Париж", (), True, "читать медленно"),
]


def test_a_csv_with_a_header_row_gives_every_question_and_skips_empty_rows():
    assert parse_file("q.csv", CSV) == EXPECTED


def test_a_semicolon_csv_with_russian_headers_and_a_bom_reads_the_same():
    data = ("\ufeffВопрос;Ответ;Зачёт;Партнёр;Комментарий\n"
            "Кто написал «Онегина»?;Пушкин;А. С. Пушкин | Pushkin;;\n").encode()
    assert parse_file("Q.CSV", data) == EXPECTED[:1]


def test_an_xlsx_first_sheet_reads_like_a_csv_numbers_included():
    data = xlsx([["text", "answer", "partner"], ["Сколько будет 2+2?", 4, 1], [None, None, None]])
    assert parse_file("q.xlsx", data) == [Item("Сколько будет 2+2?", "4", (), True, "")]


def test_a_plain_text_file_is_one_question_per_paragraph():
    items = parse_file("q.txt", TEXT)
    assert items[0] == EXPECTED[0]
    assert items[1] == Item("Столица Франции?", "Париж", (), True, "читать медленно")


@pytest.mark.parametrize(("name", "data", "message"), [
    ("q.csv", b"", "The file is empty."),
    ("q.csv", b"  \n\n", "The file is empty."),
    ("q.csv", b"question;answer\n", "The file has no questions."),
    ("q.csv", b"vopros,answer\nx,y\n", "Unknown columns: vopros."),
    ("q.csv", b"answer,note\ny,z\n", "No \u201ctext\u201d column"),
    ("q.csv", b"text,text\nx,y\n", "appears twice"),
    ("q.csv", "text,answer\nВопрос,Ответ\n".encode("cp1251"), "not UTF-8"),
    ("q.txt", "Вопрос\nОтвет: да".encode("utf-16"), "not UTF-8"),
    ("q.xlsx", b"PK\x03\x04 not a zip", "not a valid XLSX"),
    ("q.pdf", b"%PDF-1.4", "Unknown file type"),
    ("q.csv", b"text\n" + b"x" * (6 * 1024 * 1024), "too big"),
    ("q.csv", b"text\n" + b"q\n" * (bank.MAX_QUESTIONS + 1), "Too many questions"),
])
def test_a_bad_file_is_refused_with_a_clear_reason(name, data, message):
    with pytest.raises(BankError) as refused:
        parse_file(name, data)
    assert message in str(refused.value)


def test_every_bad_row_is_named_and_none_of_the_file_is_taken():
    data = ("text,answer,partner\n"
            "Good one,yes,\n"
            ",orphan answer,\n"
            "Third," + "x" * 400 + ",maybe\n").encode()
    with pytest.raises(BankError) as refused:
        parse_file("q.csv", data)
    assert refused.value.problems == [
        "row 3: the question text is empty",
        "row 4: partner is \u201cyes\u201d or \u201cno\u201d, not \u201cmaybe\u201d",
        "row 4: an answer or a variant is longer than 300 characters",
    ]


def test_a_text_block_without_a_question_is_named_by_its_number():
    with pytest.raises(BankError) as refused:
        parse_file("q.txt", "Вопрос?\nОтвет: да\n\nОтвет: нет\n".encode())
    assert refused.value.problems == ["question 2: the question text is empty"]


def huge_xlsx(rows: int) -> bytes:
    """A workbook whose first sheet has ``rows`` equal one-cell rows, written as a stream (a
    few hundred KB compressed, tens of MB unpacked)."""
    from zipfile import ZIP_DEFLATED, ZipFile

    out = io.BytesIO()
    with ZipFile(io.BytesIO(xlsx([["text"]]))) as source, ZipFile(out, "w", ZIP_DEFLATED) as dest:
        for part in source.infolist():
            if part.filename != "xl/worksheets/sheet1.xml":
                dest.writestr(part.filename, source.read(part))
                continue
            with dest.open(part.filename, "w") as sheet:
                sheet.write(b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://'
                            b'schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
                row = b'<row><c t="inlineStr"><is><t>Q?</t></is></c></row>'
                for start in range(0, rows, 10_000):
                    sheet.write(row * min(10_000, rows - start))
                sheet.write(b"</sheetData></worksheet>")
    return out.getvalue()


def test_a_million_row_xlsx_is_refused_at_the_question_limit_without_reading_it_whole():
    import time

    data = huge_xlsx(1_500_000)
    assert len(data) < bank.MAX_BYTES
    started = time.monotonic()
    with pytest.raises(BankError) as refused:
        parse_file("q.xlsx", data)
    assert refused.value.problems == [f"Too many questions: at most {bank.MAX_QUESTIONS} in one game."]
    assert time.monotonic() - started < 3  # the whole sheet took 33 s


def test_a_csv_of_endless_empty_rows_is_refused_at_the_row_limit():
    with pytest.raises(BankError, match="Too many questions"):
        parse_file("q.csv", b"text\nQ?\n" + b",\n" * (bank.MAX_ROWS + 1))


@pytest.mark.parametrize("name,data", [
    ("q.csv", "text,answer\nВопрос?,Пуш\x00кин\n".encode()),
    ("q.txt", "Вопрос?\nОтвет: Пуш\x00кин\n".encode()),
])
def test_text_no_database_stores_is_a_problem_of_its_row(name, data):
    with pytest.raises(BankError) as refused:
        parse_file(name, data)
    problem = refused.value.problems[0]
    assert problem.startswith(("row 2: a cell contains", "question 1: contains")), problem
