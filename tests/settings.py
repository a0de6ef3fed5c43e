"""The project settings, made fast for tests."""

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Unit tests run tasks in-process even when a broker is configured; the
# integration tests switch to the real worker through the celery_worker fixture.
CELERY_TASK_ALWAYS_EAGER = True
