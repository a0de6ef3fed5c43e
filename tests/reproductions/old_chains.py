# ruff: noqa: E501  (copied as Django generated it)
"""The story workflow tables of the retired chains app as its first migration made them: a test builds them
to migrate a database of that time forward (designs/0007 reads them, designs/0010 drops them)."""

import django.db.models.deletion
from django.db import migrations, models

OPERATIONS = [
    migrations.CreateModel(
        name='Workflow',
        fields=[
            ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
            ('name', models.CharField(max_length=200, unique=True)),
            ('design', models.CharField(default='timetravel', max_length=40)),
            ('loop_limit', models.PositiveSmallIntegerField(default=2)),
            ('created', models.DateTimeField(auto_now_add=True)),
        ],
    ),
    migrations.CreateModel(
        name='Stage',
        fields=[
            ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
            ('key', models.CharField(max_length=40)),
            ('order', models.PositiveSmallIntegerField()),
            ('gate', models.BooleanField(default=False)),
            ('note', models.TextField(blank=True)),
            ('batch', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='stage', to='hits.batch')),
            ('feeds', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='fed_by', to='chains.stage')),
            ('workflow', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='stages', to='chains.workflow')),
        ],
        options={
            'ordering': ['workflow', 'order'],
        },
    ),
    migrations.CreateModel(
        name='Chain',
        fields=[
            ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
            ('story_id', models.CharField(max_length=100)),
            ('story', models.JSONField()),
            ('state', models.CharField(choices=[('checking', 'Checking'), ('edited', 'Edited'), ('review', 'Review'), ('dropped', 'Dropped')], default='checking', max_length=20)),
            ('rounds', models.PositiveSmallIntegerField(default=0)),
            ('created', models.DateTimeField(auto_now_add=True)),
            ('workflow', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chains', to='chains.workflow')),
        ],
        options={
            'ordering': ['workflow', 'story_id', 'pk'],
        },
    ),
    migrations.CreateModel(
        name='Step',
        fields=[
            ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
            ('kind', models.CharField(choices=[('counterfactual', 'Counterfactual'), ('passed', 'Passed'), ('failed', 'Failed'), ('rewrite', 'Rewrite'), ('ending', 'Ending'), ('organizer', 'Organizer')], max_length=20)),
            ('round', models.PositiveSmallIntegerField(default=0)),
            ('value', models.JSONField()),
            ('edit', models.JSONField(blank=True, null=True)),
            ('created', models.DateTimeField(auto_now_add=True)),
            ('answers', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='answered_by', to='chains.step')),
            ('assignment', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, to='hits.assignment')),
            ('chain', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='steps', to='chains.chain')),
            ('item', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='chain_steps', to='hits.item')),
            ('stage', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, to='chains.stage')),
            ('worker', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, to='hits.worker')),
        ],
        options={
            'ordering': ['chain', 'pk'],
            'constraints': [models.UniqueConstraint(fields=('assignment', 'item', 'kind'), name='step_once_per_answer')],
        },
    ),
    migrations.AddConstraint(
        model_name='stage',
        constraint=models.UniqueConstraint(fields=('workflow', 'key'), name='stage_unique_key'),
    ),
]
