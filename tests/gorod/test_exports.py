"""Downloads are files whatever the Accept header says: both games' records, the statistics
CSV/XLSX and the scenario file; the statistics exports parse back to the engine's table."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from core.roles import HOST
from teams.models import Game
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import make_teams, make_user

pytestmark = pytest.mark.django_db

#: What Chromium sends when a link is followed (a browser asks for HTML first).
BROWSER_ACCEPT = ("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,"
                  "image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7")


def browser(user=None) -> Client:
    client = Client(headers={"accept": BROWSER_ACCEPT})
    if user is not None:
        client.force_login(user)
    return client


def assert_file(response, content_type: str, filename: str) -> None:
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith(content_type)
    assert f'filename="{filename}"' in response["Content-Disposition"]


# --- the records --------------------------------------------------------------------------------


@pytest.mark.parametrize("download, how", [("?download=1", "attachment"), ("", "inline")])
def test_the_gorod_record_is_json_even_for_a_browsers_accept_header(live, organizer, download,
                                                                    how):
    response = browser(organizer).get(f"/gorod/api/games/{live.pk}/record/{download}")
    assert_file(response, "application/json", f"gorod-{live.pk}.json")
    assert response["Content-Disposition"].startswith(how)
    assert json.loads(response.content)["format"] == "gorod"


def test_a_refused_gorod_record_is_json_too(live, outsider):
    response = browser(outsider).get(f"/gorod/api/games/{live.pk}/record/?download=1")
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert "detail" in response.json()


def test_the_king_of_the_hill_record_is_json_even_for_a_browsers_accept_header(organizer):
    from kingofhill import services as koth_services

    host = make_user("host-exports", HOST)
    game = Game.objects.create(title="Царь Горы", format=Game.Format.KINGOFHILL,
                               starts_at=timezone.now() + timedelta(days=5), created_by=organizer)
    make_teams(game, [f"T{i}" for i in range(8)], organizer)
    koth = koth_services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                     reserve_questions=2)
    koth_services.host_assign(actor=organizer, game=koth, user=host)
    koth_services.game_start(actor=host, game=koth)
    response = browser(organizer).get(f"/koth/api/games/{koth.pk}/record/?download=1")
    assert_file(response, "application/json", f"kingofhill-{koth.pk}.json")
    assert response["Content-Disposition"].startswith("attachment")
    assert json.loads(response.content)["format"] == "kingofhill"
    assert browser(host).get(f"/koth/api/games/{koth.pk}/record/").json()["detail"]


# --- the statistics table as CSV and XLSX -------------------------------------------------------

import csv  # noqa: E402
import io  # noqa: E402

from openpyxl import load_workbook  # noqa: E402

from gorod import exports, rules, services  # noqa: E402
from gorod.models import GorodGame  # noqa: E402


@pytest.fixture
def played(gorod, organizer, alpha, beta) -> GorodGame:
    """A night that started 300 min ago: Alpha closes 1 and 2 by code (a 10 min penalty, a
    5 min bonus); Beta closes 1, then levels 2 and 3 fail by the clock; the organizer ended the
    game at 200 min."""
    start = timezone.now() - timedelta(minutes=300)

    def minutes(m: float):
        return start + timedelta(minutes=m)

    services.game_start(actor=organizer, game=gorod, now=start)
    services.code_submit(game=gorod, application=alpha, text="g1r1d", now=minutes(31))
    services.code_submit(game=gorod, application=beta, text="G1R1D", now=minutes(40))
    services.code_submit(game=gorod, application=alpha, text="п1к2в", now=minutes(50))
    services.ruling_add(actor=organizer, game=gorod, application=alpha, type="penalty",
                        minutes=10, reason="шум", now=minutes(60))
    services.ruling_add(actor=organizer, game=gorod, application=alpha, type="bonus",
                        minutes=5, now=minutes(61))
    services.game_end(actor=organizer, game=gorod, now=minutes(200))
    gorod.refresh_from_db()
    return gorod


def engine_table(gg) -> dict:
    return rules.statistics_table(rules.compute(rules.parse_record(services.game_record(gg))))


def local(moment) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S")


def seconds(text: str) -> int:
    """``H:MM:SS`` or ``M:SS`` (``core.exports.duration_text``) in seconds."""
    parts = [int(x) for x in text.split(":")]
    return sum(part * 60 ** power for power, part in enumerate(reversed(parts)))


def test_the_csv_is_the_engines_statistics_table(played, organizer):
    response = browser(organizer).get(f"/gorod/{played.pk}/statistics.csv")
    assert_file(response, "text/csv", f"gorod-{played.pk}-statistics.csv")
    assert response.content.startswith("\ufeff".encode())  # spreadsheets read it as UTF-8
    table = engine_table(played)
    lines = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    head, body = lines[0], lines[1:]
    assert head[:3] == ["Place", "Team", "Status"] and "Level 2: time on level" in head
    assert len(body) == len(table["rows"]) == 3
    for values, row in zip(body, table["rows"], strict=True):
        record = dict(zip(head, values, strict=True))
        assert record["Team"] == row["team"]
        assert record["Place"] == ("" if row["place"] is None else str(row["place"]))
        for level, cell in zip(table["levels"], row["cells"], strict=True):
            prefix = f"Level {level}: "
            if cell is None:
                assert record[prefix + "received"] == ""
                continue
            assert record[prefix + "received"] == local(cell["received_at"])
            assert record[prefix + "hints"] == str(cell["hints_shown"])
            assert record[prefix + "closed"] == (local(cell["closed_at"]) if cell["closed_at"]
                                                 else "")
            if cell["time_s"] is not None:
                assert seconds(record[prefix + "time on level"]) == int(cell["time_s"])
        assert seconds(record["Total time"]) == int(row["total_s"])
        assert float(record["Organizer penalties (min)"]) == row["penalty_s"] / 60
        assert float(record["Bonuses (min)"]) == row["bonus_s"] / 60
        assert int(record["Failed levels"]) == row["slivs"]
        assert float(record["Penalty for failed levels (min)"]) == row["slivs"] * 15
    alpha_row = dict(zip(head, body[0], strict=True))
    assert alpha_row["Team"] == "Alpha" and alpha_row["Level 2: how"] == "code"
    assert alpha_row["Organizer penalties (min)"] == "10" and alpha_row["Bonuses (min)"] == "5"
    beta_row = next(dict(zip(head, v, strict=True)) for v in body if v[1] == "Beta")
    assert beta_row["Level 2: how"] == "failed (time out)" and beta_row["Failed levels"] == "2"


def test_the_xlsx_has_typed_cells_and_readable_durations_equal_to_the_engines_table(played, organizer):
    from datetime import datetime

    response = browser(organizer).get(f"/gorod/{played.pk}/statistics.xlsx")
    assert_file(response, exports.XLSX, f"gorod-{played.pk}-statistics.xlsx")
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = list(sheet.iter_rows(values_only=True))
    head, body = list(rows[0]), rows[1:]
    table = engine_table(played)
    assert len(body) == len(table["rows"])
    for values, row in zip(body, table["rows"], strict=True):
        record = dict(zip(head, values, strict=True))
        assert record["Team"] == row["team"] and record["Place"] == row["place"]
        for level, cell in zip(table["levels"], row["cells"], strict=True):
            prefix = f"Level {level}: "
            if cell is None:
                continue
            received = record[prefix + "received"]
            assert isinstance(received, datetime)
            assert received == timezone.localtime(cell["received_at"]).replace(
                tzinfo=None, microsecond=0)
            assert isinstance(record[prefix + "hints"], int)
            assert record[prefix + "hints"] == cell["hints_shown"]
            if cell["time_s"] is not None:
                assert seconds(record[prefix + "time on level"]) == int(cell["time_s"])
        assert seconds(record["Total time"]) == int(row["total_s"])
        assert record["Organizer penalties (min)"] == row["penalty_s"] / 60
    assert sheet["A2"].data_type == "n" and sheet["D2"].number_format == exports.TIME_FORMAT


def test_the_exports_are_for_organizers_until_the_game_is_over(live, organizer, outsider):
    for suffix in ("csv", "xlsx"):
        url = f"/gorod/{live.pk}/statistics.{suffix}"
        assert browser(organizer).get(url).status_code == 200
        assert browser(outsider).get(url).status_code == 403
        assert browser().get(url).status_code == 403
    assert browser(organizer).get("/gorod/404404/statistics.csv").status_code == 404
    page = browser(organizer).get(f"/gorod/{live.pk}/statistics/").content.decode()
    assert f"/gorod/{live.pk}/statistics.xlsx" in page
    assert "statistics.csv" not in browser(outsider).get(f"/gorod/{live.pk}/statistics/").content.decode()


def test_after_the_game_everyone_downloads_the_statistics(played):
    for suffix in ("csv", "xlsx"):
        assert browser().get(f"/gorod/{played.pk}/statistics.{suffix}").status_code == 200
    assert f"/gorod/{played.pk}/statistics.csv" in browser().get(
        f"/gorod/{played.pk}/statistics/").content.decode()


def test_before_the_start_there_is_nothing_to_export(gorod, organizer):
    assert browser(organizer).get(f"/gorod/{gorod.pk}/statistics.csv").status_code == 404
    assert browser().get(f"/gorod/{gorod.pk}/statistics.xlsx").status_code == 403


def test_the_statistics_page_prints_only_its_table():
    from pathlib import Path

    css = (Path(__file__).resolve().parents[2] / "static" / "gorod" / "gorod.css").read_text()
    media = css[css.index("@media print"):]
    assert ".site-header" in media and "display: none" in media and "landscape" in media
