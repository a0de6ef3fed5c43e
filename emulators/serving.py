"""What both emulators' HTTP faces share: a threaded server a test starts and stops, and a handler that answers in
JSON (or, as a gateway between client and service does, in HTML)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out as separate writes; with Nagle on, the body waits for the client's
    # delayed ACK of the headers: 40 ms a call.
    disable_nagle_algorithm = True
    content_type = "application/json"

    def log_message(self, format, *args):
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status, payload, headers=None):
        return self._write(status, json.dumps(payload, default=self.json_default).encode(), self.content_type,
                           headers)

    def _send_text(self, status, text):
        """A gateway's answer: HTML, not the service's JSON."""
        return self._write(status, text.encode(), "text/html")

    @staticmethod
    def json_default(value):
        return str(value)

    def _write(self, status, data, content_type, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


class Emulator:
    """A service's emulator in a thread for tests (`with Emulator() as emulator:`), or served forever from its
    management command. `state` is what the handler reads as `self.server.<name>`."""

    def __init__(self, handler, host, port, faults, verbose, **state):
        self.faults = faults
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.httpd.faults = faults
        self.httpd.verbose = verbose
        for name, value in state.items():
            setattr(self.httpd, name, value)

    @property
    def url(self):
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
