import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("crowdset")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="crowdset.ping")
def ping():
    """Health check: which worker process answered (`celery -A config call crowdset.ping`)."""
    import socket

    return {"hostname": socket.gethostname(), "pid": os.getpid()}
