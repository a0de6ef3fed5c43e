"""The story workflows' tables go for good: designs/0007 moved their contents into design batches, and the app
that made them (chains/) is gone. A database that still has them (one migrated before chains/0002 dropped them)
loses them here; the app's rows in the migration history go too, so nothing waits for it, and so do the content
types and permissions Django made for the models of the apps that became `reproductions` (chains, choices, facts)."""

from django.db import migrations

OLD_TABLES = ("chains_step", "chains_chain", "chains_stage", "chains_workflow")  # the ones pointed at last
OLD_APPS = ("chains", "choices", "facts")


def forwards(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        present = set(connection.introspection.table_names(cursor))
        for table in OLD_TABLES:
            if table in present:
                schema_editor.execute(f"DROP TABLE {schema_editor.quote_name(table)}")
        cursor.execute("DELETE FROM django_migrations WHERE app = %s", ["chains"])
    Permission = apps.get_model("auth", "Permission")
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission.objects.filter(content_type__app_label__in=OLD_APPS).delete()
    ContentType.objects.filter(app_label__in=OLD_APPS).delete()


class Migration(migrations.Migration):
    dependencies = [("designs", "0009_subtask2_batches_as_designs"), ("auth", "0012_alter_user_first_name_max_length"),
                    ("contenttypes", "0002_remove_content_type_name")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
