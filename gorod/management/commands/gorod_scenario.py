"""``manage.py gorod_scenario export|check|import``: GoRoD scenario files on the command line.

- ``export GAME_ID [--out FILE] [--json]``: the game's scenario (YAML, or JSON) to stdout or FILE;
- ``check FILE``: a dry run; every problem as one ``error: ...`` line and exit 2, or a summary
  (and the set-up warnings) and exit 0 when the scenario is playable;
- ``import FILE --game GAME_ID [--user NAME]``: replace the set-up of a game not started yet,
  all or nothing.

Bad input is ``error: ...`` and exit 2 (``core.management.base.ClearCommand``).
"""

from __future__ import annotations

import sys

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.db.models import Q

from core.errors import DomainError
from core.management.base import ClearCommand, Problems
from core.roles import ORGANIZER
from gorod import scenario, selectors, services
from gorod.models import GorodGame


def _problems(exc: DomainError) -> CommandError:
    # One "error: ..." line per problem (ClearCommand writes each).
    return Problems(exc.problems if isinstance(exc, scenario.ScenarioError) else [exc.message])


class Command(ClearCommand):
    help = "Export, check or import a GoRoD scenario file (YAML or JSON)."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        export = sub.add_parser("export", help="print a game's scenario")
        export.add_argument("game_id", type=int)
        export.add_argument("--out", help="write to this file instead of standard output")
        export.add_argument("--json", action="store_true", help="JSON instead of YAML")
        check = sub.add_parser("check", help="check a scenario file without importing it")
        check.add_argument("file")
        load = sub.add_parser("import", help="import a scenario file into a game in set-up")
        load.add_argument("file")
        load.add_argument("--game", type=int, required=True, help="the GoRoD game's id")
        load.add_argument("--user", help="the organizer importing it (default: the first "
                                         "organizer or superuser)")

    def handle(self, *args, action: str, **options):
        try:
            getattr(self, f"_{action}")(**options)
        except DomainError as exc:
            raise _problems(exc) from None

    def _gorod(self, game_id: int) -> GorodGame:
        try:
            return selectors.gorod_game(game_id)
        except GorodGame.DoesNotExist:
            raise CommandError(f"no GoRoD game with id {game_id}") from None

    def _read(self, file: str) -> scenario.Scenario:
        try:
            if file == "-":
                content = sys.stdin.buffer.read()
            else:
                with open(file, "rb") as handle:
                    content = handle.read()
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror}") from None
        return scenario.parse_scenario(scenario.loads(content))

    def _export(self, *, game_id: int, out: str | None, json: bool, **_):
        text = scenario.dumps(scenario.scenario_dict(scenario.scenario_of(self._gorod(game_id))),
                              "json" if json else "yaml")
        if out is None:
            self.stdout.write(text, ending="")
            return
        try:
            with open(out, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise CommandError(f"cannot write {out}: {exc.strerror}") from None
        self.stdout.write(f"written: {out}")

    def _check(self, *, file: str, **_):
        for line in scenario.summary(self._read(file)):
            self.stdout.write(line)

    def _import(self, *, file: str, game: int, user: str | None, **_):
        parsed = self._read(file)
        gg = self._gorod(game)
        services.scenario_import(actor=self._actor(user), game=gg, scenario=parsed)
        self.stdout.write(f"imported {len(parsed.levels)} level(s) into game {gg.pk} "
                          f"({gg.game.title})")

    def _actor(self, username: str | None):
        users = get_user_model().objects.filter(is_active=True)
        if username:
            found = users.filter(username=username).first()
            if found is None:
                raise CommandError(f"no active user {username!r}")
            return found
        found = (users.filter(Q(is_superuser=True) | Q(groups__name=ORGANIZER))
                 .order_by("pk").first())
        if found is None:
            raise CommandError("no organizer or superuser to import as: create one or give --user")
        return found
