"""The one settings module.

Every value comes from the environment through the helpers below, which refuse
malformed values instead of guessing. With no environment at all the project
runs on its embedded defaults: a SQLite file, Celery tasks run eagerly in the
calling process, and the in-house crowd provider.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def env_str(name, default=""):
    return os.environ.get(name, default)


def env_bool(name, default):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean: use one of {sorted(_TRUE | _FALSE)}")


def env_int(name, default):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number") from None


def env_choice(name, default, choices):
    value = os.environ.get(name) or default
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} is not one of {sorted(choices)}")
    return value


def env_list(name, default):
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
# The embedded default key is only good for a laptop; production must set one.
SECRET_KEY = env_str("SECRET_KEY") or "insecure-embedded-default-set-SECRET_KEY-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_celery_beat",
    "filtering",
    "hits",
    "qualification",
    "annotation",
    "aggregation",
    "datasets",
    "dashboard",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.roles.context",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets a reader (the dashboard) run while an ingest writes.
    DATABASES["default"]["OPTIONS"] = {"init_command": "PRAGMA journal_mode=WAL;", "timeout": 30}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Where dataset exports started from the pages are written, a folder per version.
EXPORT_ROOT = Path(env_str("EXPORT_ROOT") or BASE_DIR / "exports")

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]

# Celery. No broker configured means the embedded default: tasks run eagerly in
# the calling process, so the whole pipeline works with no services at all.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or "memory://localhost/"
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else None
)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not env_str("CELERY_BROKER_URL"))
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = TIME_ZONE

# The crowd provider new batches use unless the organizer picks another.
CROWD_PROVIDER = env_choice("CROWD_PROVIDER", "inhouse", {"inhouse", "mturk"})

# Reference data shipped beside the project (corpora, released SemEval files).
SHARED_DIR = Path(env_str("CROWDSET_SHARED_DIR") or BASE_DIR.parent / "shared")

# NLTK models are read from disk only; nothing is downloaded at run time.
# `make` links .nltk_data to the shared models (or downloads them once at setup).
NLTK_DATA = Path(env_str("NLTK_DATA") or BASE_DIR / ".nltk_data")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {
        "handlers": ["console"],
        "level": env_choice("LOG_LEVEL", "WARNING", {"DEBUG", "INFO", "WARNING", "ERROR"}),
    },
}

# MTurk (existing accounts and compatible endpoints). Credentials come from the
# usual AWS environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).
MTURK_SANDBOX = env_bool("MTURK_SANDBOX", True)
MTURK_ENDPOINT_URL = env_str("MTURK_ENDPOINT_URL")  # e.g. the emulator; default: the sandbox or production
MTURK_QUESTION = env_choice("MTURK_QUESTION", "html", {"html", "external"})
MTURK_EXTERNAL_URL = env_str("MTURK_EXTERNAL_URL")  # https://... of this site, for ExternalQuestion
MTURK_LOCALES = env_list("MTURK_LOCALES", ["US", "GB", "CA", "AU", "NZ", "IE"])
MTURK_MIN_APPROVAL_RATE = env_int("MTURK_MIN_APPROVAL_RATE", 82)

CELERY_BEAT_SCHEDULE = {
    "sync-open-batches": {"task": "hits.tasks.sync_open_batches", "schedule": env_int("SYNC_EVERY_SECONDS", 60)},
}
CELERY_BEAT_SCHEDULE["aggregate-completed-batches"] = {
    "task": "aggregation.tasks.aggregate_completed_batches", "schedule": env_int("AGGREGATE_EVERY_SECONDS", 120),
}
