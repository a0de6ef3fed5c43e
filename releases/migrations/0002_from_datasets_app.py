"""This app was called `datasets` (it shadowed the Hugging Face library). A
database made before the rename keeps its versions: their rows are copied
from the old tables, which are then dropped."""

from django.core.management.color import no_style
from django.db import migrations

TABLES = ("datasetversion", "datasetsentence", "datasetspan")


def copy_old_tables(apps, schema_editor):
    connection = schema_editor.connection
    existing = set(connection.introspection.table_names())
    if not all(f"datasets_{table}" in existing for table in TABLES):
        return
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"INSERT INTO {quote('releases_' + table)} SELECT * FROM {quote('datasets_' + table)}")
        for table in reversed(TABLES):
            cursor.execute(f"DROP TABLE {quote('datasets_' + table)}")
        models = [apps.get_model("releases", name) for name in ("DatasetVersion", "DatasetSentence", "DatasetSpan")]
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("releases", "0001_initial")]
    operations = [migrations.RunPython(copy_old_tables, migrations.RunPython.noop)]
