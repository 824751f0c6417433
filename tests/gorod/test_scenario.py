"""Scenario files: reading and checking them (every problem listed), the round trip, the import
on the set-up page and with ``manage.py gorod_scenario``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gorod import scenario, services
from gorod.models import GorodGame, Level, Route
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import make_teams, minutes
from tests.properties import examples

DEMO = Path(__file__).resolve().parents[2] / "gorod" / "scenarios" / "demo-night.yaml"
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def minimal(**extra) -> dict:
    data = {"format": "gorod-scenario", "version": 1,
            "levels": [{"id": "1", "codes": {"code": "G1R1D"}},
                       {"id": "2", "codes": {"code": "G1R2D"}}]}
    data.update(extra)
    return data


def problems(data) -> list[str]:
    with pytest.raises(scenario.ScenarioError) as caught:
        scenario.parse_scenario(data)
    return caught.value.problems


# --- reading and checking -----------------------------------------------------------------------


def test_the_demo_scenario_is_playable_and_russian():
    demo = scenario.parse_scenario(scenario.loads(DEMO.read_bytes()))
    assert [lv["id"] for lv in demo.levels] == ["1", "2", "3"]
    assert "мост" in demo.levels[0]["task"] and [lv["danger"] for lv in demo.levels] == [2, 1, 3]
    assert demo.levels[2]["codes"]["sectors"][0]["kind"] == "personal_digit"
    assert demo.routes == {} and demo.settings["max_duration_h"] == 6


def test_yaml_readings_that_would_change_a_code_are_texts():
    data = scenario.loads("a: 0123\nb: 1:20\nc: yes\nd: 1_000\ne: 70\nf: 2.5\ng: true\nh: 1.5e3\n")
    assert data == {"a": "0123", "b": "1:20", "c": "yes", "d": "1_000", "e": 70, "f": 2.5,
                    "g": True, "h": "1.5e3"}


@pytest.mark.parametrize("content, message", [
    pytest.param(b"levels: [\n  - id: 1\n", "not valid YAML", id="broken YAML"),
    pytest.param(b"levels:\n\t- id: 1\n", "not valid YAML", id="a tab for indentation"),
    pytest.param(b'{"levels": [}', "not valid JSON: Expecting value at line 1", id="broken JSON"),
    pytest.param(b"\xff\xfe\x00", "not UTF-8", id="not text"),
    pytest.param(b"a" * (scenario.MAX_BYTES + 1), "larger than", id="too big"),
])
def test_a_file_that_cannot_be_read_says_why(content, message):
    with pytest.raises(scenario.ScenarioError) as caught:
        scenario.loads(content)
    assert message in caught.value.problems[0]


def test_a_yaml_error_names_the_line():
    with pytest.raises(scenario.ScenarioError, match="at line 4, column 1"):
        scenario.loads("format: gorod-scenario\nlevels:\n  - id: 1\n\ttask: x\n")


@pytest.mark.parametrize("data, expected", [
    pytest.param([], ["the file must hold a mapping"], id="not a mapping"),
    pytest.param(minimal(format="gorod"), ["format: expected 'gorod-scenario', got 'gorod'"],
                 id="wrong format"),
    pytest.param(minimal(version=2), ["version: this site reads version 1, got 2"], id="version"),
    pytest.param(minimal(teams=["A"]), ["teams: unknown key"], id="unknown key"),
    pytest.param(minimal(levels=[]), ["levels: a scenario needs a list of at least one level"],
                 id="no levels"),
    pytest.param(minimal(settings={"hint_offsets_min": [50, 25]}),
                 ["settings.hint_offsets_min: the hint times must increase"], id="hints"),
    pytest.param(minimal(settings={"sliv_penalty_min": -5}),
                 ["settings.sliv_penalty_min: -5 is outside [0, 1440]"], id="negative penalty"),
    pytest.param(minimal(settings={"max_duration_h": 0}),
                 ["settings.max_duration_h: 0 is outside (0, 1000]"], id="a 0 h game"),
    pytest.param(minimal(settings={"hints": [1]}), ["settings.hints: unknown setting"],
                 id="unknown setting"),
    pytest.param(minimal(levels=[{"id": "1", "codes": {"code": None}}]),
                 ["levels[0].codes: code: expected a text, got None"], id="a null code"),
    pytest.param(minimal(levels=[{"id": "1"}]), ["levels[0].codes: the level has no code"],
                 id="no code"),
    pytest.param(minimal(levels=[{"id": "1", "codes": "G1R1D"}]), ["levels[0].codes: expected"],
                 id="codes as a bare text"),
    pytest.param(minimal(levels=[{"codes": {"code": "A"}}]), ["levels[0].id: expected"],
                 id="no id"),
    pytest.param(minimal(levels=[{"id": "1", "duration_min": 0, "codes": {"code": "A"}}]),
                 ["levels[0].duration_min: expected minutes more than 0"], id="0 min"),
    pytest.param(minimal(levels=[{"id": "1", "danger": 5, "codes": {"code": "A"}}]),
                 ["levels[0].danger: expected 1, 2, 3 or 4, got 5"], id="danger 5"),
    pytest.param(minimal(levels=[{"id": "1", "task": ["x"], "codes": {"code": "A"}}]),
                 ["levels[0].task: expected a text"], id="a task that is not a text"),
    pytest.param(minimal(routes={"Alpha": ["1", "9"]}),
                 ["routes.Alpha[1]: unknown level '9'", "routes.Alpha: the route misses level(s) 2"],
                 id="an unknown level in a route"),
    pytest.param(minimal(routes={"Alpha": ["1", "1"]}),
                 ["routes.Alpha[1]: level '1' is visited twice",
                  "routes.Alpha: the route misses level(s) 2"], id="a level visited twice"),
    pytest.param(minimal(routes={"Alpha": "1, 2"}), ["routes.Alpha: expected a list"],
                 id="a route that is not a list"),
    pytest.param(minimal(routes=["1", "2"]), ["routes: expected a mapping"], id="routes list"),
])
def test_every_problem_of_a_scenario_is_named(data, expected):
    found = problems(data)
    assert len(found) == len(expected), found
    for line, start in zip(found, expected, strict=True):
        assert line.startswith(start), (line, start)


def test_all_problems_are_listed_at_once():
    found = problems(minimal(version=3, settings={"max_duration_h": 10**9}, levels=[
        {"id": "1", "codes": {"code": None}}, {"id": "1", "codes": {"code": "A"}}]))
    assert [p.split(":")[0] for p in found] == [
        "version", "settings.max_duration_h", "levels[0].codes", "levels[1].id"]


# --- the round trip ----------------------------------------------------------------------------

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=40)
LINES = st.lists(TEXT, max_size=3).map("\n".join)
CODE = st.text("ABCDGRXYZ0123456789АБВГДЕЖЛЕЩ-#", min_size=1, max_size=10)


@st.composite
def scenarios(draw) -> dict:
    ids = draw(st.lists(st.text("abcxyz0123456789-", min_size=1, max_size=6), min_size=1,
                        max_size=4, unique=True))
    levels = []
    for level_id in ids:
        if draw(st.booleans()):
            codes = {"code": draw(CODE)}
        else:
            codes = {"sectors": [
                {"name": f"s{i}", "codes": draw(st.lists(CODE, min_size=1, max_size=2))}
                for i in range(draw(st.integers(1, 2)))]}
            if draw(st.booleans()):
                codes["sectors"].append({"name": "p", "kind": "personal_digit",
                                         "codes": [draw(CODE)], "personal": {"Альфа": "4"}})
        level = {"id": level_id, "duration_min": draw(st.sampled_from([70, 45, 12.5, 600])),
                 "codes": codes}
        for key in ("task", "hint1", "hint2"):
            if draw(st.booleans()):
                level[key] = draw(LINES)
        if draw(st.booleans()):
            level["danger"] = draw(st.integers(1, 4))
        if draw(st.booleans()):
            level["photo_proof"] = True
        if draw(st.booleans()):
            level["images"] = draw(st.lists(st.sampled_from(["мост.png", "b.jpg"]), min_size=1,
                                            unique=True))
        levels.append(level)
    first = draw(st.floats(0, 100, allow_nan=False).map(lambda x: round(x, 2)))
    data = {"format": "gorod-scenario", "version": 1,
            "settings": {"hint_offsets_min": [first, first + draw(st.integers(1, 60))],
                         "sliv_penalty_min": draw(st.integers(0, 60)),
                         "max_duration_h": draw(st.sampled_from([24, 6, 0.5])),
                         "max_wrong": draw(st.integers(1, 1000)),
                         "wrong_window_s": draw(st.integers(1, 3600))},
            "levels": levels}
    if draw(st.booleans()):
        data["title"] = draw(TEXT.filter(bool))
    if draw(st.booleans()):
        data["routes"] = {name: draw(st.permutations(ids)) for name in ("Альфа", "Beta: 2")}
    return data


@settings(max_examples=examples(60), deadline=None)
@given(scenarios(), st.sampled_from(["yaml", "json"]))
def test_a_scenario_survives_its_file_unchanged(data, fmt):
    parsed = scenario.parse_scenario(data)
    text = scenario.dumps(scenario.scenario_dict(parsed), fmt)
    again = scenario.parse_scenario(scenario.loads(text))
    assert again == parsed
    assert scenario.scenario_dict(again) == scenario.scenario_dict(parsed)


# --- the import and the export ------------------------------------------------------------------

pytestmark = pytest.mark.django_db


@pytest.fixture
def empty(scheduled, entries, organizer) -> GorodGame:
    return services.gorod_create(actor=organizer, game=scheduled)


def test_the_demo_imports_and_exports_back_unchanged(empty, organizer):
    demo = scenario.parse_scenario(scenario.loads(DEMO.read_bytes()))
    services.scenario_import(actor=organizer, game=empty, scenario=demo)
    levels = list(Level.objects.filter(gorod=empty))
    assert [(lv.order, lv.label, lv.danger) for lv in levels] == [(1, "1", 2), (2, "2", 1),
                                                                  (3, "3", 3)]
    empty.refresh_from_db()
    assert empty.max_duration_h == 6
    exported = scenario.scenario_of(empty)
    assert exported.levels == demo.levels and exported.settings == demo.settings
    assert exported.routes == {}


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=scenarios())
def test_any_scenario_imported_into_a_game_exports_back_unchanged(empty, organizer, data):
    data.pop("title", None)  # the game keeps its own title
    if "routes" in data:
        data["routes"] = {"Alpha": data["routes"]["Альфа"], "Beta": data["routes"]["Beta: 2"]}
    parsed = scenario.parse_scenario(data)
    for name in ("мост.png", "b.jpg"):
        services.image_add(actor=organizer, game=empty, name=name, data=PNG)
    services.scenario_import(actor=organizer, game=empty, scenario=parsed)
    exported = scenario.scenario_dict(scenario.scenario_of(empty))
    exported.pop("title")
    assert exported == scenario.scenario_dict(parsed)


def test_routes_name_the_games_approved_teams(empty, organizer, alpha, beta):
    data = minimal(routes={"Alpha": ["2", "1"], "Beta": ["1", "2"], "Gamma": ["2", "1"]})
    services.scenario_import(actor=organizer, game=empty, scenario=scenario.parse_scenario(data))
    assert {r.application_id: r.levels for r in Route.objects.filter(gorod=empty)} == {
        alpha.pk: ["2", "1"], beta.pk: ["1", "2"], alpha.pk + 2: ["2", "1"]}


def test_a_route_for_a_team_not_in_the_game_imports_nothing(empty, organizer):
    services.level_add(actor=organizer, game=empty, codes={"code": "KEEP"})
    data = minimal(routes={"Alpha": ["2", "1"], "Омега": ["1", "2"], "Zeta": ["1", "2"]})
    with pytest.raises(scenario.ScenarioError) as caught:
        services.scenario_import(actor=organizer, game=empty,
                                 scenario=scenario.parse_scenario(data))
    assert caught.value.problems == [
        "routes: “Омега” is not an approved team of this game",
        "routes: “Zeta” is not an approved team of this game"]
    assert list(Level.objects.filter(gorod=empty).values_list("codes", flat=True)) == [
        {"code": "KEEP"}]
    assert not Route.objects.exists()


def test_an_import_is_refused_after_the_start_and_for_others(running, organizer, outsider):
    parsed = scenario.parse_scenario(minimal())
    with pytest.raises(services.DomainError, match="before the start"):
        services.scenario_import(actor=organizer, game=running, scenario=parsed)
    with pytest.raises(services.NotAllowed):
        services.scenario_import(actor=outsider, game=running, scenario=parsed)
    assert Level.objects.filter(gorod=running).count() == 3


# --- on the set-up page -------------------------------------------------------------------------


def login(user, **headers) -> Client:
    client = Client(headers=headers)
    client.force_login(user)
    return client


def upload(client, gg, content: bytes, name="night.yaml"):
    return client.post(f"/gorod/{gg.pk}/setup/", {
        "action": "scenario", "file": SimpleUploadedFile(name, content)}, follow=True)


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_demo_is_imported_on_the_setup_page_and_downloaded_back(empty, organizer):
    client = login(organizer)
    response = upload(client, empty, DEMO.read_bytes())
    assert "The scenario is imported: 3 levels." in messages_of(response)
    html = response.content.decode()
    assert "Старый мост" in html
    assert "Level 3 has no personal code or digit for: Alpha, Beta, Gamma." in html
    browser = login(organizer, accept=BROWSER_ACCEPT)
    for fmt, kind in (("yaml", "application/yaml"), ("json", "application/json")):
        download = browser.get(f"/gorod/{empty.pk}/scenario.{fmt}")
        assert download.status_code == 200 and download["Content-Type"].startswith(kind)
        assert download["Content-Disposition"] == (
            f'attachment; filename="gorod-{empty.pk}-scenario.{fmt}"')
        again = scenario.parse_scenario(scenario.loads(download.content))
        assert again.levels == scenario.parse_scenario(scenario.loads(DEMO.read_bytes())).levels


@pytest.mark.parametrize("content, expected", [
    pytest.param(b"levels: [\n", ["The scenario is not imported: not valid YAML"], id="bad YAML"),
    pytest.param(json.dumps(minimal(routes={"Alpha": ["1", "7"]})).encode(), [
        "The scenario is not imported: routes.Alpha[1]: unknown level '7'",
        "The scenario is not imported: routes.Alpha: the route misses level(s) 2"],
        id="a broken route"),
    pytest.param(json.dumps(minimal(settings={"hint_offsets_min": [-1, 25]})).encode(), [
        "The scenario is not imported: settings.hint_offsets_min[0]: -1 is outside [0, 10080]"],
        id="settings the engine refuses"),
    pytest.param(json.dumps(minimal(routes={"Nobody": ["1", "2"]})).encode(), [
        "The scenario is not imported: routes: “Nobody” is not an approved team of this game"],
        id="an unknown team"),
])
def test_a_bad_scenario_on_the_page_is_a_message_per_problem_and_changes_nothing(
        empty, organizer, content, expected):
    client = login(organizer)
    services.level_add(actor=organizer, game=empty, codes={"code": "KEEP"})
    response = upload(client, empty, content)
    found = messages_of(response)
    assert len(found) == len(expected), found
    for line, start in zip(found, expected, strict=True):
        assert line.startswith(start), (line, start)
    assert list(Level.objects.filter(gorod=empty).values_list("codes", flat=True)) == [
        {"code": "KEEP"}]


def test_an_upload_without_a_file_is_a_message(empty, organizer):
    response = login(organizer).post(f"/gorod/{empty.pk}/setup/", {"action": "scenario"})
    assert messages_of(response) == ["Scenario file (YAML or JSON): This field is required."]


def test_scenario_files_are_for_organizers(empty, outsider):
    assert Client().get(f"/gorod/{empty.pk}/scenario.yaml").status_code == 302
    assert login(outsider).get(f"/gorod/{empty.pk}/scenario.yaml").status_code == 403
    assert login(outsider).post(f"/gorod/{empty.pk}/setup/", {"action": "scenario"}).status_code == 403


# --- manage.py gorod_scenario -------------------------------------------------------------------


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("gorod_scenario", *args, stdout=out, stderr=err)
    except SystemExit as exc:
        return exc.code, out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def test_check_prints_a_summary_of_a_playable_scenario():
    code, out, err = run("check", str(DEMO))
    assert code == 0 and err == ""
    assert out.splitlines()[:3] == [
        "playable: 3 level(s): 1, 2, 3",
        "hints at 25, 50 min; 15 min per failed level; at most 6 h; 10 wrong codes per 60 s",
        "linear: every team plays the levels in this order"]


def test_check_prints_every_problem_as_an_error_line_and_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(minimal(version=2, routes={"A": ["1", "9"]}, levels=[
        {"id": "1", "codes": {"code": "A"}}, {"id": "2", "duration_min": -1, "codes": {}}])))
    code, out, err = run("check", str(bad))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        "error: version: this site reads version 1, got 2",
        "error: levels[1].duration_min: expected minutes more than 0 and at most 10080, got -1",
        "error: levels[1].codes: bad level code description: 'sectors'",
        "error: routes.A[1]: unknown level '9'",
        "error: routes.A: the route misses level(s) 2 (a route visits every level exactly once)"]
    assert run("check", str(tmp_path / "missing.yaml"))[2].startswith("error: cannot read")
    (tmp_path / "broken.yaml").write_text("levels: [\n")
    code, _, err = run("check", str(tmp_path / "broken.yaml"))
    assert code == 2 and err.startswith("error: not valid YAML")


def test_import_then_export_round_trips_through_the_command(empty, organizer, tmp_path):
    code, out, err = run("import", str(DEMO), "--game", str(empty.pk))
    assert (code, err) == (0, "") and out.startswith("imported 3 level(s)")
    code, out, _ = run("export", str(empty.pk))
    assert code == 0
    demo = scenario.parse_scenario(scenario.loads(DEMO.read_bytes()))
    assert scenario.parse_scenario(scenario.loads(out)).levels == demo.levels
    target = tmp_path / "night.json"
    assert run("export", str(empty.pk), "--json", "--out", str(target))[0] == 0
    assert json.loads(target.read_text())["levels"][0]["codes"] == {"code": "G1R12345D"}


def test_the_command_refuses_bad_input_with_exit_2(empty, organizer, tmp_path):
    assert run("export", "404404")[2] == "error: no GoRoD game with id 404404\n"
    assert run("import", str(DEMO), "--game", "404404")[0] == 2
    started = services.gorod_create(actor=organizer, title="Идёт", starts_at=minutes(0),
                                    levels=[{"codes": {"code": "A"}}])
    make_teams(started.game, ["Solo"], organizer)
    services.game_start(actor=organizer, game=started, now=minutes(0))
    code, _, err = run("import", str(DEMO), "--game", str(started.pk))
    assert code == 2 and "before the start" in err
    code, _, err = run("import", str(DEMO), "--game", str(empty.pk), "--user", "nobody")
    assert (code, err) == (2, "error: no active user 'nobody'\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: gorod-scenario\nlevels:\n  - id: 1\n    codes: {code: A}\n"
                   "routes:\n  Чужие: ['1']\n")
    code, _, err = run("import", str(bad), "--game", str(empty.pk))
    assert (code, err) == (2, "error: routes: “Чужие” is not an approved team of this game\n")
    assert not Level.objects.filter(gorod=empty).exists()


# --- task images by file name -------------------------------------------------------------------

from tests.images import PNG  # noqa: E402


def test_scenario_images_name_the_games_uploaded_images(empty, organizer):
    data = minimal(levels=[{"id": "1", "images": ["мост.png", "карта.png"],
                            "codes": {"code": "A"}}])
    parsed = scenario.parse_scenario(data)
    assert "images to upload to the game before the import: мост.png, карта.png" in (
        scenario.summary(parsed))
    with pytest.raises(scenario.ScenarioError) as caught:
        services.scenario_import(actor=organizer, game=empty, scenario=parsed)
    assert caught.value.problems == [
        "levels[0].images: no uploaded image “мост.png” (upload it under Task images first)",
        "levels[0].images: no uploaded image “карта.png” (upload it under Task images first)"]
    assert not Level.objects.filter(gorod=empty).exists()
    for name in ("мост.png", "карта.png"):
        services.image_add(actor=organizer, game=empty, name=name, data=PNG)
    services.scenario_import(actor=organizer, game=empty, scenario=parsed)
    assert Level.objects.get(gorod=empty).images == ["мост.png", "карта.png"]
    exported = scenario.scenario_dict(scenario.scenario_of(empty))
    assert exported["levels"][0]["images"] == ["мост.png", "карта.png"]
    # A re-import of the levels keeps the uploaded images.
    services.scenario_import(actor=organizer, game=empty, scenario=parsed)
    assert empty.images.count() == 2


@pytest.mark.parametrize("images, message", [
    ("a.png", "levels[0].images: expected a list of file names"),
    ([""], "levels[0].images[0]: expected a file name, got ''"),
    (["dir/a.png"], "levels[0].images[0]: expected a file name, got 'dir/a.png'"),
    ([7], "levels[0].images[0]: expected a file name, got 7"),
    (["a.png", "a.png"], "levels[0].images[1]: 'a.png' is listed twice"),
])
def test_bad_scenario_images_are_named(images, message):
    assert problems(minimal(levels=[{"id": "1", "images": images,
                                     "codes": {"code": "A"}}])) == [message]


# --- hostile files: any nesting or size is one clear error --------------------------------------

DEEP_JSON = b"[" * 5000 + b"]" * 5000
DEEP = f"the file is nested deeper than {scenario.MAX_DEPTH} levels"
LAUGHS = "a: &a [" + ",".join(["lol"] * 10) + "]\n" + "".join(
    f"{n}: &{n} [" + ",".join([f"*{p}"] * 10) + "]\n"
    for p, n in zip("abcdefgh", "bcdefghi", strict=True))


@pytest.mark.parametrize("content, message", [
    pytest.param(DEEP_JSON, DEEP, id="JSON 5000 deep"),
    pytest.param(b"levels: " + DEEP_JSON, DEEP, id="YAML flow 5000 deep"),
    pytest.param(("levels:\n" + "".join(" " * i + "-\n" for i in range(1, 1000))).encode(),
                 DEEP, id="YAML blocks 1000 deep"),
    pytest.param(LAUGHS.encode(), f"more than {scenario.MAX_NODES} values", id="alias bomb"),
    pytest.param(json.dumps(minimal(title="a\x00b")).encode(), "NUL", id="NUL in JSON"),
    pytest.param(b"format: gorod-scenario\ntitle: \"a\\0b\"\n", "NUL", id="NUL in YAML"),
])
def test_a_hostile_file_is_one_clear_problem(content, message):
    with pytest.raises(scenario.ScenarioError) as caught:
        scenario.loads(content)
    assert len(caught.value.problems) == 1 and message in caught.value.problems[0]


def test_a_deeply_nested_scenario_on_the_page_is_a_message(empty, organizer):
    response = upload(login(organizer), empty, DEEP_JSON, name="deep.json")
    assert response.status_code == 200
    assert messages_of(response) == [f"The scenario is not imported: {DEEP}"]


def test_check_refuses_a_deeply_nested_file_with_one_error_line(tmp_path):
    for name, content in (("deep.json", DEEP_JSON), ("deep.yaml", b"levels: " + DEEP_JSON)):
        (tmp_path / name).write_bytes(content)
        code, out, err = run("check", str(tmp_path / name))
        assert (code, out) == (2, "")
        assert err.startswith(f"error: {DEEP}") and len(err.splitlines()) == 1
