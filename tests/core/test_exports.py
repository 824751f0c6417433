"""Every table the site exports writes a captain's formula-like name as text (CSV: a leading
quote; XLSX: a string cell), keeps numbers as numbers and durations readable."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook

from core import exports
from gorod import services as gorod_services
from gorod.models import GorodGame
from rating import services as rating_services
from teams.models import Application
from tests.gorod.fixtures_live import minutes
from tests.rating.helpers import (
    captained_teams,
    finalize,
    gorod_game,
    koth_game,
    make_organizer,
    player,
)

pytestmark = pytest.mark.django_db

HOSTILE = ['=HYPERLINK("http://x","y")', "+1+2", "@SUM(A1)"]


def read_csv(response) -> list[list[str]]:
    assert response.status_code == 200, response.content[:300]
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


def read_xlsx(response):
    assert response.status_code == 200, response.content[:300]
    return load_workbook(io.BytesIO(response.content)).active


def assert_texts_not_formulas(csv_rows, sheet, names=HOSTILE) -> None:
    csv_cells = {cell for row in csv_rows for cell in row}
    for name in names:
        assert "'" + name in csv_cells and name not in csv_cells
    xlsx_cells = {cell.value: cell for row in sheet.iter_rows() for cell in row}
    for name in names:
        assert name in xlsx_cells, name
        assert xlsx_cells[name].data_type == "s"
    assert not [c for row in sheet.iter_rows() for c in row if c.data_type == "f"]


def test_a_formula_like_text_is_quoted_in_csv_and_a_string_cell_in_xlsx():
    rows = [["=1+1", -5, 2.5, "-3", "\tTab", "\rCR", "Альфа", None, timedelta(minutes=-15)]]
    parsed = list(csv.reader(io.StringIO(exports.csv_bytes(list("abcdefghi"), rows)
                                         .decode("utf-8-sig"))))
    assert parsed[1] == ["'=1+1", "-5", "2.5", "'-3", "'\tTab", "'\rCR", "Альфа", "", "−15:00"]
    sheet = load_workbook(io.BytesIO(exports.xlsx_bytes("T", list("abcdefghi"), rows))).active
    cells = list(sheet.iter_rows(min_row=2))[0]
    assert (cells[0].value, cells[0].data_type) == ("=1+1", "s")
    assert (cells[1].value, cells[1].data_type) == (-5, "n")  # a real number stays a number
    assert (cells[3].value, cells[3].data_type) == ("-3", "s")
    assert cells[8].value == "−15:00"


def test_durations_read_as_a_person_expects():
    assert exports.duration_text(timedelta(minutes=1)) == "1:00"
    assert exports.duration_text(-60) == "−1:00"
    assert exports.duration_text(3900) == "1:05:00"
    assert exports.duration_text(0) == "0:00"
    assert exports.duration_text(None) == ""


@pytest.fixture
def organizer():
    return make_organizer()


@pytest.fixture
def hostile_teams():
    return captained_teams(HOSTILE)


def test_the_gorod_statistics_write_hostile_names_as_text(organizer, hostile_teams):
    game = gorod_game(organizer, teams=hostile_teams)
    gg = GorodGame.objects.get(game=game)
    client = Client()
    client.force_login(organizer)
    assert_texts_not_formulas(read_csv(client.get(f"/gorod/{gg.pk}/statistics.csv")),
                              read_xlsx(client.get(f"/gorod/{gg.pk}/statistics.xlsx")))


def test_the_results_and_season_tables_write_hostile_names_as_text(organizer, hostile_teams):
    game = gorod_game(organizer, teams=hostile_teams)
    season = rating_services.season_create(actor=organizer, title="=cmd|' /C calc'!A0",
                                           format="gorod")
    rating_services.season_game_add(actor=organizer, season=season, game=game)
    rating_services.results_publish(actor=organizer, game=game)
    finalize(organizer, game)
    client = Client()
    for url in ("rating:results_export", [game.pk]), ("rating:season_export",
                                                      [season.pk, "table"]):
        name, args = url
        assert_texts_not_formulas(read_csv(client.get(reverse(name, args=[*args, "csv"]))),
                                  read_xlsx(client.get(reverse(name, args=[*args, "xlsx"]))))


def test_the_players_table_writes_hostile_names_as_text(organizer):
    teams = captained_teams(["Alpha", "Beta", "Gamma"])
    game = koth_game(organizer, teams=teams)
    nicknames = ["=2+5", "-Вася", "@me"]
    for team, nickname in zip(teams, nicknames, strict=True):
        # The table names the profile (rule 2.6): its surname comes first in the cell.
        member = player(team, nickname, surname=nickname, first_name="x")
        Application.objects.get(game=game, team=team).members.set([member])
    rating_services.results_publish(actor=organizer, game=game)
    finalize(organizer, game)
    season = rating_services.season_create(actor=organizer, title="KotH", format="kingofhill")
    rating_services.season_game_add(actor=organizer, season=season, game=game)
    client = Client()
    urls = [reverse("rating:season_export", args=[season.pk, "players", ext])
            for ext in ("csv", "xlsx")]
    rows = read_csv(client.get(urls[0]))
    sheet = read_xlsx(client.get(urls[1]))
    assert_texts_not_formulas(rows, sheet, [f"{name} x" for name in nicknames])
    points = [cell for cell in list(sheet.iter_rows(min_row=2))[0] if cell.column == 4]
    assert points[0].data_type == "n"  # points stay numbers


def test_a_one_minute_bonus_reads_as_one_minute_in_every_export(organizer):
    teams = captained_teams(["Alpha", "Beta", "Gamma"])
    game = gorod_game(organizer, teams=teams, finish=False)
    gg = GorodGame.objects.get(game=game)
    alpha = Application.objects.get(game=game, team=teams[0])
    gorod_services.ruling_add(actor=organizer, game=gg, application=alpha, type="bonus",
                              minutes=1, now=minutes(30))
    gorod_services.game_end(actor=organizer, game=gg, now=minutes(60))
    rating_services.results_publish(actor=organizer, game=game)
    client = Client()
    head, *body = read_csv(client.get(reverse("rating:results_export", args=[game.pk, "csv"])))
    alpha_row = dict(zip(head, next(r for r in body if r[1] == "Alpha"), strict=True))
    assert alpha_row["Bonuses"] == "1:00"
    sheet = read_xlsx(client.get(reverse("rating:results_export", args=[game.pk, "xlsx"])))
    rows = list(sheet.iter_rows(values_only=True))
    alpha_cells = dict(zip(rows[0], next(r for r in rows if r[1] == "Alpha"), strict=True))
    assert alpha_cells["Bonuses"] == "1:00"
    client.force_login(organizer)
    stats = read_xlsx(client.get(f"/gorod/{gg.pk}/statistics.xlsx"))
    rows = list(stats.iter_rows(values_only=True))
    alpha_stats = dict(zip(rows[0], next(r for r in rows if r[1] == "Alpha"), strict=True))
    assert alpha_stats["Bonuses (min)"] == 1
