"""The emulator's HTTP face: MTurk's JSON 1.1 wire protocol for requesters,
the externalSubmit form and a small JSON API for simulated workers, and
switchable fault injection.

Requester calls: `POST /` with `X-Amz-Target: MTurkRequesterServiceV20170117.<Op>`.
Workers: `POST /_worker/register {"WorkerId", "Locale", "ApprovalRate"}`,
`GET /_worker/hits?workerId=...`, `POST /_worker/accept {"WorkerId", "HITId"}`,
and `POST /mturk/externalSubmit` (form fields, `assignmentId` among them; the
worker's session is the `X-Worker-Id` header). Faults: `POST /_faults
{"CreateHITWithHITType": {"drop": 0.1, "throttle": 0.1, "502": 0.05}}`: `throttle` and `error` answer before
the work; `drop`, `502`, `504` and `timeout` do the work and then lose its answer (emulators.faults).
"""

import json
from http import HTTPStatus
from urllib.parse import parse_qs, urlparse

from emulators import serving
from emulators.faults import AFTER, Faults
from emulators.mturk.state import Account, RequestError, WorkerError

TARGET_PREFIX = "MTurkRequesterServiceV20170117."


class Handler(serving.Handler):
    server_version = "MTurkEmulator/1.0"
    content_type = "application/x-amz-json-1.1"

    def do_POST(self):
        path = urlparse(self.path).path
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if path == "/" and self.headers.get("X-Amz-Target", "").startswith(TARGET_PREFIX):
            return self._requester(self.headers["X-Amz-Target"][len(TARGET_PREFIX):], body)
        if path == "/mturk/externalSubmit":
            fields = {key: values[-1] for key, values in parse_qs(body.decode("utf-8"), keep_blank_values=True).items()}
            assignment = fields.pop("assignmentId", "")
            return self._worker(lambda account: account.submit(self.headers.get("X-Worker-Id", ""), assignment, fields)
                                or {"submitted": assignment})
        data = json.loads(body or b"{}")
        if path == "/_worker/register":
            return self._worker(lambda account: account.register_worker(
                data["WorkerId"], locale=data.get("Locale", "US"), approval_rate=data.get("ApprovalRate", 99),
                approved=data.get("Approved", 5000), masters=data.get("Masters", False))
                or {"registered": data["WorkerId"]})
        if path == "/_worker/qualification":
            return self._worker(lambda account: {"IntegerValue": account.take_qualification_test(
                data["WorkerId"], data["QualificationTypeId"], data.get("Answers", {}))})
        if path == "/_worker/accept":
            return self._worker(lambda account: {"AssignmentId": account.accept(data["WorkerId"], data["HITId"])})
        if path == "/_faults":
            self.server.faults.set(data)
            return self._send(HTTPStatus.OK, {"faults": data})
        return self._send(HTTPStatus.NOT_FOUND, {"message": f"no such path {path}"})

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/_worker/hits":
            worker = parse_qs(url.query).get("workerId", [""])[0]
            return self._worker(lambda account: {"HITs": account.assignable_hits(worker)})
        return self._send(HTTPStatus.NOT_FOUND, {"message": f"no such path {url.path}"})

    def _requester(self, operation, body):
        account = self.server.account
        method = getattr(account, operation, None)
        if method is None or not operation[0].isupper():
            return self._send(HTTPStatus.BAD_REQUEST, {"__type": "UnknownOperationException",
                                                       "message": f"Unknown operation {operation}"})
        fault = self.server.faults.draw(operation)
        if fault == "throttle":
            return self._send(HTTPStatus.BAD_REQUEST, {"__type": "ThrottlingException", "message": "Rate exceeded"})
        if fault == "error":
            fault_body = {"__type": "ServiceFault", "Message": "Service is unavailable",
                          "TurkErrorCode": "AWS.ServiceUnavailable"}
            return self._send(HTTPStatus.INTERNAL_SERVER_ERROR, fault_body)
        self.server.faults.pause(operation)
        try:
            with account.lock:
                result = method(json.loads(body or b"{}"))
        except RequestError as error:
            return self._send(HTTPStatus.BAD_REQUEST, {"__type": "RequestError", "Message": error.message,
                                                       "TurkErrorCode": error.code})
        self.server.faults.worked(operation)
        if fault in AFTER:  # the work is done; the answer is lost on the way back
            return self.server.faults.lose_answer(self, fault, self._send_text)
        return self._send(HTTPStatus.OK, result)

    def _worker(self, call):
        try:
            with self.server.account.lock:
                result = call(self.server.account)
        except WorkerError as error:
            return self._send(error.status, {"message": str(error)})
        return self._send(HTTPStatus.OK, result)


class MTurkEmulator(serving.Emulator):
    """Run in a thread for tests (`with MTurkEmulator() as emulator:`), or
    serve forever from `manage.py mturk_emulator`."""

    def __init__(self, host="127.0.0.1", port=0, *, seed=0, balance="10000.00", verbose=False, clock=None,
                 timeout_seconds=2.0):
        self.account = Account(seed=seed, balance=balance, **({"clock": clock} if clock else {}))
        super().__init__(Handler, host, port, Faults(seed, timeout_seconds=timeout_seconds), verbose,
                         account=self.account)

    def client(self, *, backoff=True, **config):
        """A real boto3 MTurk client pointed at this emulator.

        backoff=False keeps botocore's standard retry rules (which errors, how
        many attempts, the retry quota) but waits 0 s between attempts, so a
        test of hundreds of dropped and throttled calls takes seconds, not a
        minute of sleeping. It swaps the handler through botocore's event API.
        """
        import boto3
        from botocore.config import Config
        from botocore.retries import quota, standard

        retries = config.pop("retries", {"mode": "standard", "max_attempts": 10})
        client = boto3.client("mturk", region_name="us-east-1", endpoint_url=self.url, aws_access_key_id="emulator",
                              aws_secret_access_key="emulator", config=Config(retries=retries, **config))
        if not backoff:
            # botocore.retries.standard.register_retry_handler, with a zero cap on the backoff.
            adapter = standard.RetryEventAdapter()
            throttling = standard.ThrottlingErrorDetector(adapter)
            retry_quota = standard.RetryQuotaChecker(quota.RetryQuota(), throttling)
            handler = standard.RetryHandler(
                retry_policy=standard.RetryPolicy(
                    retry_checker=standard.StandardRetryConditions(
                        max_attempts=client.meta.config.retries["total_max_attempts"]),
                    retry_backoff=standard.ExponentialBackoff(max_backoff=0, throttling_detector=throttling)),
                retry_event_adapter=adapter, retry_quota=retry_quota, service_name="mturk")
            client.meta.events.unregister("needs-retry.mturk", unique_id="retry-config-mturk")
            client.meta.events.register("needs-retry.mturk", handler.needs_retry, unique_id="retry-config-mturk")
            client.meta.events.register("after-call.mturk", retry_quota.release_retry_quota)
        return client
