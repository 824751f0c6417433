"""The live states' models belong to the ``live`` app now (``live.0001_live_models``): core
forgets them and keeps their tables, which the live app takes over as they are."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("core", "0006_live_parts"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.DeleteModel(name="LivePart"),
            migrations.DeleteModel(name="LiveStream"),
        ]),
    ]
