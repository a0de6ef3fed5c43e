import time

from django.core.management.base import BaseCommand

from emulators.mturk import MTurkEmulator


class Command(BaseCommand):
    help = ("Serve the MTurk emulator (MTurk's JSON wire protocol) for the demo or manual tests. "
            "Point the provider at it with MTURK_ENDPOINT_URL=http://127.0.0.1:PORT.")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8765)
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--balance", default="10000.00")
        parser.add_argument("--verbose", action="store_true", help="log every request")

    def handle(self, *args, **options):
        emulator = MTurkEmulator(options["host"], options["port"], balance=options["balance"],
                                 verbose=options["verbose"]).start()
        self.stdout.write(f"MTurk emulator listening on {emulator.url} (Ctrl-C stops it)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            emulator.stop()
