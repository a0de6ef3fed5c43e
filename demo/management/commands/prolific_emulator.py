import time

from django.core.management.base import BaseCommand

from emulators.prolific import ProlificEmulator


class Command(BaseCommand):
    help = ("Serve the Prolific emulator (Prolific's researcher API v1) for the demo or manual tests. Point the "
            "provider at it with PROLIFIC_API_URL=http://127.0.0.1:PORT/api/v1/ and PROLIFIC_TOKEN=<--token>.")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8766)
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--token", default="emulator-token", help="the API token the emulator accepts")
        parser.add_argument("--currency", default="GBP", choices=["GBP", "USD"])
        parser.add_argument("--balance", type=int, default=10_000_00, help="workspace balance in minor units")
        parser.add_argument("--verbose", action="store_true", help="log every request")

    def handle(self, *args, **options):
        emulator = ProlificEmulator(options["host"], options["port"], token=options["token"],
                                    currency=options["currency"], balance=options["balance"],
                                    verbose=options["verbose"]).start()
        self.stdout.write(f"Prolific emulator listening on {emulator.api_url} (token {options['token']!r}; "
                          f"Ctrl-C stops it)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            emulator.stop()
