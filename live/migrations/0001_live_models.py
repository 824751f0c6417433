"""The live states' models, moved here from core with their tables (``core_livestream`` and
``core_livepart``, created by core's migrations 0003 and 0006): nothing changes in the
database."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("core", "0007_live_models_moved"),
        ("teams", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name="LiveStream",
                fields=[
                    ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                               serialize=False, verbose_name="ID")),
                    ("audience", models.CharField(max_length=40, verbose_name="audience")),
                    ("version", models.PositiveIntegerField(default=0, verbose_name="version")),
                    ("game", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                               related_name="live_streams", to="teams.game",
                                               verbose_name="game")),
                ],
                options={
                    "verbose_name": "live stream",
                    "verbose_name_plural": "live streams",
                    "db_table": "core_livestream",
                    "constraints": [models.UniqueConstraint(fields=("game", "audience"),
                                                            name="core_live_stream_once")],
                },
            ),
            migrations.CreateModel(
                name="LivePart",
                fields=[
                    ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                               serialize=False, verbose_name="ID")),
                    ("key", models.CharField(max_length=60, verbose_name="key")),
                    ("position", models.PositiveSmallIntegerField(verbose_name="position")),
                    ("text", models.TextField(verbose_name="value (JSON)")),
                    ("stream", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                                 related_name="parts", to="live.livestream",
                                                 verbose_name="live stream")),
                ],
                options={
                    "verbose_name": "live state part",
                    "verbose_name_plural": "live state parts",
                    "db_table": "core_livepart",
                    "constraints": [models.UniqueConstraint(fields=("stream", "key"),
                                                            name="core_live_part_once")],
                },
            ),
        ]),
    ]
