"""Live states stored as their top-level keys (``LivePart``); the stored texts are split, their
versions kept, so open screens go on from the version they hold."""

import json

import django.db.models.deletion
from django.db import migrations, models


def split(apps, schema_editor):
    LiveStream = apps.get_model("core", "LiveStream")
    LivePart = apps.get_model("core", "LivePart")
    parts = []
    for stream in LiveStream.objects.all().iterator():
        state = json.loads(stream.text or "{}")
        for position, (key, value) in enumerate(state.items()):
            parts.append(LivePart(stream_id=stream.pk, key=key, position=position,
                                  text=json.dumps(value, ensure_ascii=False,
                                                  separators=(",", ":"))))
        if len(parts) > 2000:
            LivePart.objects.bulk_create(parts)
            parts = []
    LivePart.objects.bulk_create(parts)


def join(apps, schema_editor):
    LiveStream = apps.get_model("core", "LiveStream")
    for stream in LiveStream.objects.all().iterator():
        parts = stream.parts.order_by("position")
        stream.text = "{" + ",".join(f"{json.dumps(p.key, ensure_ascii=False)}:{p.text}"
                                     for p in parts) + "}"
        stream.save(update_fields=["text"])


class Migration(migrations.Migration):

    dependencies = [
        ("core", "0005_audit_entry"),
    ]

    operations = [
        migrations.CreateModel(
            name="LivePart",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("key", models.CharField(max_length=60, verbose_name="key")),
                ("position", models.PositiveSmallIntegerField(verbose_name="position")),
                ("text", models.TextField(verbose_name="value (JSON)")),
                ("stream", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="parts", to="core.livestream", verbose_name="live stream")),
            ],
            options={
                "verbose_name": "live state part",
                "verbose_name_plural": "live state parts",
                "constraints": [models.UniqueConstraint(fields=("stream", "key"), name="core_live_part_once")],
            },
        ),
        migrations.AlterField(model_name="livestream", name="text",
                              field=models.TextField(blank=True, default="", verbose_name="state (JSON)")),
        migrations.RunPython(split, join),
        migrations.RemoveField(model_name="livestream", name="text"),
    ]
