"""The one settings module.

Every value comes from the environment through the helpers below, which refuse
malformed values instead of guessing. With no environment at all the project
runs on its embedded defaults: a SQLite file, Celery tasks run eagerly in the
calling process, and the in-house crowd provider.
"""

import os
import warnings
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


def env_decimal(name, default, low, high):
    from decimal import Decimal, InvalidOperation

    raw = os.environ.get(name)
    if raw is None or raw == "":
        return Decimal(default)
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None
    if not (value.is_finite() and Decimal(low) <= value <= Decimal(high)):
        raise ImproperlyConfigured(f"{name}={raw!r} is not between {low} and {high}")
    return value


def env_list(name, default):
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


# With no SECRET_KEY this is a laptop: DEBUG is on and a built-in key is used. A deployment sets
# SECRET_KEY (and DEBUG is then off unless asked for); DEBUG off with the built-in key refuses to start.
SECRET_KEY = env_str("SECRET_KEY")
DEBUG = env_bool("DEBUG", not SECRET_KEY)
EMBEDDED_SECRET_KEY = "insecure-embedded-default-set-SECRET_KEY-in-production"
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DEBUG is off but SECRET_KEY is not set: set SECRET_KEY to a long random string "
                                   "(python -c 'import secrets; print(secrets.token_urlsafe(50))')")
    SECRET_KEY = EMBEDDED_SECRET_KEY
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "accounts.admin_site.CrowdsetAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # WhiteNoise serves static files under runserver as it does under gunicorn.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_celery_beat",
    "axes",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "accounts",
    "jobs",
    "filtering",
    "hits",
    "qualification",
    "annotation",
    "aggregation",
    "designs",
    "releases",
    "projects",
    "reproductions",
    "dashboard",
    "api",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its own answer.
    "axes.middleware.AxesMiddleware",
]

if env_bool("SERVER_TIMING", False):
    MIDDLEWARE.insert(0, "config.timing.ServerTimingMiddleware")

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
                "accounts.roles.context",
            ],
            # Counts read as 100,000 on every page, as the Python-made messages write them.
            "builtins": ["django.contrib.humanize.templatetags.humanize"],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
# A web process keeps its PostgreSQL connection (checked before reuse) instead of opening one per request:
# a connection costs a PostgreSQL backend's start, more than most annotator requests. SQLite opens a file.
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 0 if DATABASE_URL.startswith("sqlite") else 600),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several web workers, the job threads and an ingest share one file. WAL lets readers run beside the
    # writer; IMMEDIATE takes the write lock when a transaction starts, so two writers queue for it (up to
    # `timeout` seconds) instead of one failing with "database is locked" halfway through.
    DATABASES["default"]["OPTIONS"] = {"init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                                       "timeout": 30, "transaction_mode": "IMMEDIATE"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Logging in: each role lands on its own pages (`/` sends it there); ten wrong passwords for one account
# lock it for an hour (django-axes), whatever address they come from.
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = env_int("AXES_COOLOFF_HOURS", 1)
AXES_LOCKOUT_PARAMETERS = ["username"]
# django-axes also wants the address in the lockout key (axes.W006): we lock the account and not the address
# on purpose, because a lab's annotators often share one address and one typist must not lock them all out.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
AXES_LOCKOUT_TEMPLATE = "accounts/locked.html"
AXES_RESET_ON_SUCCESS = True

# Behind HTTPS (the default whenever DEBUG is off): secure cookies, a redirect from http, HSTS.
# HTTPS=false for a site on plain http (a local test); SECURE_PROXY_SSL_HEADER when a proxy ends TLS.
HTTPS = env_bool("HTTPS", not DEBUG)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_PRELOAD = HTTPS and env_bool("SECURE_HSTS_PRELOAD", True)
if env_str("SECURE_PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = (env_str("SECURE_PROXY_SSL_HEADER"), "https")

# accounts/hashers.py says why Argon2id with these parameters; the others only read hashes made before.
PASSWORD_HASHERS = [
    "accounts.hashers.Argon2idHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
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
# Where organizers' uploads (corpora, released files) are kept, a folder per project.
UPLOAD_ROOT = Path(env_str("UPLOAD_ROOT") or BASE_DIR / "uploads")
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 2 * 1024**3)
# Uploads go to a temporary file as they arrive, never whole into memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 0

# Static files are served by the web process itself (WhiteNoise), styled with DEBUG off too. Without
# `collectstatic` they are read from the apps' static folders; with it, from STATIC_ROOT, compressed.
STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "config.storage.StaticFiles"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
# Until `collectstatic` has run there is no STATIC_ROOT, and the finders serve everything.
warnings.filterwarnings("ignore", message="No directory at: .*staticfiles")

# A cache every web process and host shares (Redis: CACHE_URL=redis://HOST:6379/1) holds the sessions in front of
# their table and read-mostly data: a HIT's rendered page (never changes once made) and each batch's count of open
# HITs (forgotten when it changes). Without one, each process keeps its own; another process's count of open HITs
# may then lag by up to ten seconds (hits.selectors.OPEN_HITS_SECONDS), which only the work list shows.
CACHE_URL = env_str("CACHE_URL")
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
          if CACHE_URL else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if CACHE_URL:
    # Read from Redis, written to both: a session survives a Redis restart, and every host sees the same one.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# Celery. No broker configured means the embedded default: tasks run eagerly in
# the calling process, so the whole pipeline works with no services at all.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or "memory://localhost/"
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else None
)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not env_str("CELERY_BROKER_URL"))
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A worker killed mid-task gives the task back (every task is safe to run again: a filter chunk is done
# once, a job is taken over only when its heartbeat stopped). With Redis, a task a dead worker held comes
# back after the visibility timeout.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600)}
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = TIME_ZONE

# The crowd provider new batches use unless the organizer picks another.
CROWD_PROVIDER = env_choice("CROWD_PROVIDER", "inhouse", {"inhouse", "mturk", "prolific"})

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
if MTURK_QUESTION == "external" and not (MTURK_EXTERNAL_URL.startswith("https://") and "." in MTURK_EXTERNAL_URL[8:]):
    raise ImproperlyConfigured(f"MTURK_EXTERNAL_URL={MTURK_EXTERNAL_URL!r}: with MTURK_QUESTION=external, MTurk "
                               f"needs this site's absolute https address, e.g. https://crowd.example.org")
# The hosts a task page posts its answers to (`turkSubmitTo`): MTurk's own, production and sandbox.
MTURK_SUBMIT_HOSTS = env_list("MTURK_SUBMIT_HOSTS", ["www.mturk.com", "workersandbox.mturk.com"])
MTURK_LOCALES = env_list("MTURK_LOCALES", ["US", "GB", "CA", "AU", "NZ", "IE"])
MTURK_MIN_APPROVAL_RATE = env_int("MTURK_MIN_APPROVAL_RATE", 82)
# Seconds boto3 waits for MTurk's answer before it counts the answer as lost (and retries with the same
# UniqueRequestToken, which MTurk turns into a lookup).
MTURK_TIMEOUT = env_int("MTURK_TIMEOUT", 60)

# Prolific (researcher API v1). The emulator (`manage.py prolific_emulator`) stands in for it in tests and
# the demo: PROLIFIC_API_URL=http://127.0.0.1:8766/api/v1/ and its token.
PROLIFIC_API_URL = env_str("PROLIFIC_API_URL") or "https://api.prolific.com/api/v1/"
PROLIFIC_TOKEN = env_str("PROLIFIC_TOKEN")
PROLIFIC_WORKSPACE = env_str("PROLIFIC_WORKSPACE")
PROLIFIC_PROJECT = env_str("PROLIFIC_PROJECT")
# Where people reach this site, for the links commands print (`design import-potato`): runserver's address
# unless set.
SITE_URL = env_str("SITE_URL") or "http://127.0.0.1:8000"
# This site's public address: participants open studies at PROLIFIC_EXTERNAL_URL/prolific/start/.
PROLIFIC_EXTERNAL_URL = env_str("PROLIFIC_EXTERNAL_URL")
PROLIFIC_COMPLETE_URL = env_str("PROLIFIC_COMPLETE_URL") or "https://app.prolific.com/submissions/complete"
PROLIFIC_CURRENCY = env_choice("PROLIFIC_CURRENCY", "GBP", {"GBP", "USD"})
PROLIFIC_SECONDS_PER_ITEM = env_int("PROLIFIC_SECONDS_PER_ITEM", 20)  # for the estimated completion time
PROLIFIC_MIN_APPROVAL_RATE = env_int("PROLIFIC_MIN_APPROVAL_RATE", 95)
PROLIFIC_MIN_APPROVALS = env_int("PROLIFIC_MIN_APPROVALS", 100)
PROLIFIC_COUNTRIES = env_list("PROLIFIC_COUNTRIES", ["United Kingdom", "United States", "Canada", "Australia",
                                                     "Ireland", "New Zealand"])
PROLIFIC_LANGUAGE = env_str("PROLIFIC_LANGUAGE") or "English"
PROLIFIC_DEVICES = env_list("PROLIFIC_DEVICES", ["desktop"])
# The webhook signing secret (POST hooks/secrets/); without it webhooks are refused and the sync alone works.
PROLIFIC_WEBHOOK_SECRET = env_str("PROLIFIC_WEBHOOK_SECRET")
# Seconds to wait for one answer from Prolific; past it the answer counts as lost (a call that is not idempotent
# is then looked up, never sent again blind).
PROLIFIC_TIMEOUT = env_int("PROLIFIC_TIMEOUT", 30)
# A participant's page asks Prolific for at most this long (retries included), then says "Prolific is busy, try
# again in a minute" and leaves the rest to a background task.
PROLIFIC_PAGE_SECONDS = env_int("PROLIFIC_PAGE_SECONDS", 4)
# VAT on Prolific's platform fee goes by where the workspace is registered: "uk" (20% on every fee, with or
# without a VAT number), "eu" (reverse-charged with a valid PROLIFIC_VAT_NUMBER, else charged at PROLIFIC_VAT_RATE)
# or "none" (outside the EU VAT regime). Estimates, budgets and the ledger count it; reconcile checks it against
# the balance breakdown Prolific reports.
PROLIFIC_VAT_REGION = env_choice("PROLIFIC_VAT_REGION", "uk", {"uk", "eu", "none"})
PROLIFIC_VAT_NUMBER = env_bool("PROLIFIC_VAT_NUMBER", False)
PROLIFIC_VAT_RATE = env_decimal("PROLIFIC_VAT_RATE", "0.20", 0, 1)
# How long one request may hold a payment while it asks the provider to pay it (hits.models.Payment.sending_since);
# longer than a provider call with every retry.
PAYMENT_LEASE_SECONDS = env_int("PAYMENT_LEASE_SECONDS", 900)
# A payment whose answer was lost after the provider may have paid it (Prolific pays bonus sets asynchronously)
# is looked up again, and sent again only when the provider has not listed it after this long.
PAYMENT_SETTLE_SECONDS = env_int("PAYMENT_SETTLE_SECONDS", 600)
# A project page asks a job for a batch's report figures when answers came in since they were computed, at most
# once per this many seconds: while answers keep coming the figures follow at that pace (projects.views).
FIGURES_PAUSE_SECONDS = env_int("FIGURES_PAUSE_SECONDS", 10)

CELERY_BEAT_SCHEDULE = {
    "sync-open-batches": {"task": "hits.tasks.sync_open_batches", "schedule": env_int("SYNC_EVERY_SECONDS", 60)},
    "reconcile-batches": {"task": "hits.tasks.reconcile_open_batches",
                          "schedule": env_int("RECONCILE_EVERY_SECONDS", 3600)},
}
# A sync of one batch stops after SYNC_SECONDS and the next goes on from the HITs it did not reach; a sync
# whose process died holds the batch for at most SYNC_LEASE_SECONDS.
SYNC_SECONDS = env_int("SYNC_SECONDS", 45)
SYNC_LEASE_SECONDS = env_int("SYNC_LEASE_SECONDS", 300)
CELERY_BEAT_SCHEDULE["aggregate-completed-batches"] = {
    "task": "aggregation.tasks.aggregate_completed_batches", "schedule": env_int("AGGREGATE_EVERY_SECONDS", 120),
}

# Jobs started from the pages (jobs app). With a broker they go to Celery; on
# the embedded defaults they run in threads of the web process, so a page that
# starts one returns at once. A running job beats a heartbeat; one silent for
# JOB_LEASE_SECONDS is marked failed (its process died) and can be restarted.
JOBS_RUNNER = env_choice("JOBS_RUNNER", "celery" if env_str("CELERY_BROKER_URL") else "thread", {"celery", "thread"})
JOBS_THREADS = env_int("JOBS_THREADS", 2)
JOB_HEARTBEAT_SECONDS = env_int("JOB_HEARTBEAT_SECONDS", 5)
JOB_LEASE_SECONDS = env_int("JOB_LEASE_SECONDS", 60)
JOB_QUEUE_TIMEOUT_SECONDS = env_int("JOB_QUEUE_TIMEOUT_SECONDS", 3600)
CELERY_BEAT_SCHEDULE["reap-stale-jobs"] = {"task": "jobs.tasks.reap_stale_jobs", "schedule": 60}
# A language model's run whose process died (no answer stored within its lease) is marked failed.
CELERY_BEAT_SCHEDULE["reap-stale-model-runs"] = {"task": "designs.tasks.reap_stale_model_runs", "schedule": 300}

# The JSON API (api app): a token for lab scripts, the session for the browser; unauthenticated calls get 401.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication",
                                       "rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "api.inputs.StrictLimitOffsetPagination",
    "DEFAULT_PARSER_CLASSES": ["api.inputs.JSONParser", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "api.schema.ErrorsAutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "crowdset API",
    "DESCRIPTION": "Projects, batches, HITs, assignments, aggregations and dataset versions of a crowdset site.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
}

# The licence a dataset card states for data collected here (an SPDX id as the Hugging Face hub takes it);
# a version imported from the released SemEval files states theirs (CC BY 4.0).
DATASET_LICENSE = env_str("DATASET_LICENSE") or "cc-by-4.0"
