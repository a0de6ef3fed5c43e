from decimal import Decimal

from rest_framework import serializers

from aggregation.models import AggregationRun
from hits.models import Assignment, Batch, Hit, Payment
from jobs.models import Job
from projects.models import Project
from releases.models import DatasetVersion


class StepSerializer(serializers.Serializer):
    key = serializers.CharField()
    title = serializers.CharField()
    state = serializers.ChoiceField(choices=["done", "next", "ready", "working", "blocked"])
    summary = serializers.CharField()
    note = serializers.CharField()


class ProjectSerializer(serializers.ModelSerializer):
    batches = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    aggregations = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    versions = serializers.SlugRelatedField(many=True, read_only=True, slug_field="name")

    class Meta:
        model = Project
        fields = ["id", "name", "slug", "design", "description", "created", "batches", "aggregations", "versions"]


class BatchSerializer(serializers.ModelSerializer):
    hits_total = serializers.IntegerField(read_only=True)
    hits_published = serializers.IntegerField(read_only=True)
    assignments = serializers.DictField(child=serializers.IntegerField(), read_only=True)
    spent = serializers.DecimalField(max_digits=12, decimal_places=2, read_only=True)
    estimate = serializers.DecimalField(max_digits=12, decimal_places=2, read_only=True)
    # What adaptive redundancy saved (hits.services.adaptive.adaptive_savings); null when the batch buys every vote.
    adaptive_savings = serializers.JSONField(read_only=True, allow_null=True)
    # A span batch with two or more annotators a sentence: token F1 and alpha, overall and per domain (no
    # interval here; `manage.py span_agreement` bootstraps one).
    span_agreement = serializers.JSONField(read_only=True, allow_null=True)

    class Meta:
        model = Batch
        fields = ["id", "name", "task_type", "provider", "state", "items_per_hit", "assignments_per_hit", "gold_rate",
                  "reward", "budget", "requirements", "created", "published", "hits_total", "hits_published",
                  "assignments", "spent", "estimate", "adaptive", "adaptive_savings", "span_agreement"]


class HitSerializer(serializers.ModelSerializer):
    items = serializers.SerializerMethodField()

    class Meta:
        model = Hit
        fields = ["id", "batch", "index", "state", "provider_hit_id", "published", "expires", "items"]

    def get_items(self, hit) -> list[int]:
        return [hit_item.item_id for hit_item in hit.hit_items.all()]


class AssignmentSerializer(serializers.ModelSerializer):
    worker = serializers.StringRelatedField()

    class Meta:
        model = Assignment
        fields = ["id", "hit", "worker", "state", "provider_assignment_id", "claimed", "deadline", "submitted",
                  "reviewed", "answers", "feedback"]


class BonusSerializer(serializers.Serializer):
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal("0.01"),
                                      max_value=Decimal("999999.99"))
    reason = serializers.CharField(max_length=500, help_text="why it is paid; the worker reads it")


class PaymentSerializer(serializers.ModelSerializer):
    worker = serializers.StringRelatedField()

    class Meta:
        model = Payment
        fields = ["id", "batch", "assignment", "worker", "kind", "amount", "reason", "state", "provider_reference",
                  "attempts", "error", "created", "confirmed"]


class ReviewSerializer(serializers.Serializer):
    feedback = serializers.CharField(required=False, allow_blank=True, max_length=1024)


class AggregationSerializer(serializers.ModelSerializer):
    class Meta:
        model = AggregationRun
        fields = ["id", "batch", "created", "rules", "rules_text", "votes", "alpha", "alpha_low", "alpha_high",
                  "summary"]


class VersionSerializer(serializers.ModelSerializer):
    table1 = serializers.DictField(read_only=True)
    table2 = serializers.DictField(read_only=True)
    files = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = DatasetVersion
        fields = ["id", "name", "created", "config", "split_report", "results", "table1", "table2", "files"]


class JobSerializer(serializers.ModelSerializer):
    progress = serializers.ListField(child=serializers.IntegerField(), allow_null=True, read_only=True)

    class Meta:
        model = Job
        fields = ["id", "kind", "target", "options", "state", "message", "result", "created", "started", "finished",
                  "progress"]
