import pytest
from django.core.exceptions import ImproperlyConfigured

from config import settings as config


def test_it_reads_booleans_strictly(monkeypatch):
    monkeypatch.setenv("FLAG", "yes")
    assert config.env_bool("FLAG", False) is True
    monkeypatch.setenv("FLAG", "0")
    assert config.env_bool("FLAG", True) is False
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG='maybe' is not a boolean"):
        config.env_bool("FLAG", False)


def test_it_reads_numbers_and_choices_strictly(monkeypatch):
    monkeypatch.setenv("N", "ten")
    with pytest.raises(ImproperlyConfigured, match="N='ten' is not a whole number"):
        config.env_int("N", 1)
    monkeypatch.setenv("PROVIDER", "prolific")
    with pytest.raises(ImproperlyConfigured, match="PROVIDER='prolific' is not one of"):
        config.env_choice("PROVIDER", "inhouse", {"inhouse", "mturk"})
    monkeypatch.delenv("PROVIDER")
    assert config.env_choice("PROVIDER", "inhouse", {"inhouse", "mturk"}) == "inhouse"


def test_it_uses_embedded_defaults_without_environment(monkeypatch):
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "CROWD_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    import importlib

    fresh = importlib.reload(config)
    try:
        assert fresh.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
        assert fresh.CELERY_TASK_ALWAYS_EAGER is True
        assert fresh.CROWD_PROVIDER == "inhouse"
    finally:
        monkeypatch.undo()
        importlib.reload(config)
