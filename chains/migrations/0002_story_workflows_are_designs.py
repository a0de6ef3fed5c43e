"""The workflow tables go: designs/0007 moved every workflow, chain and step into design batches, their items and
answers (designs/lineage.py reads the lineage back from them)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("chains", "0001_initial"), ("designs", "0007_story_workflows_as_designs")]

    operations = [
        migrations.DeleteModel(name="Step"),
        migrations.DeleteModel(name="Chain"),
        migrations.DeleteModel(name="Stage"),
        migrations.DeleteModel(name="Workflow"),
    ]
