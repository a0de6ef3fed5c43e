"""The project settings, made fast for tests."""

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Unit tests run tasks in-process even when a broker is configured; the
# integration tests switch to the real worker through the celery_worker fixture.
CELERY_TASK_ALWAYS_EAGER = True

# Jobs go through Celery, which runs them eagerly here (and in the real worker in integration tests).
JOBS_RUNNER = "celery"

# A file, not memory: threads (live servers, job runners) then share it the way web workers share the
# embedded default, with its busy timeout, instead of failing on shared-cache table locks.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    import os
    import tempfile

    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.path.join(tempfile.gettempdir(), f"crowdset-test-{os.getpid()}.sqlite3")}

# A payment whose answer was lost is looked up again at once (the emulators list a payment as soon as it is made).
PAYMENT_SETTLE_SECONDS = 0
FIGURES_PAUSE_SECONDS = 0

# What jobs and uploads write goes to a folder of the test run's own, never into the checkout.
import tempfile as _tempfile  # noqa: E402
from pathlib import Path as _Path  # noqa: E402

_SCRATCH = _Path(_tempfile.mkdtemp(prefix="crowdset-test-files-"))
EXPORT_ROOT = _SCRATCH / "exports"
UPLOAD_ROOT = _SCRATCH / "uploads"
