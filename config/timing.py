"""Server-Timing on every response (SERVER_TIMING=true; the load test turns it on): the CPU time this request
took in the web process, its database queries and its time in the application (wall clock), so a benchmark can
put a cost on each endpoint, and tell time spent serving from time spent waiting to be served. Off by default:
timings are nobody else's business."""

import time

from django.db import connections


class ServerTimingMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        queries = [0, 0.0]

        def counted(execute, sql, params, many, context):
            started = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                queries[0] += 1
                queries[1] += time.perf_counter() - started

        cpu, wall = time.thread_time(), time.perf_counter()
        with connections["default"].execute_wrapper(counted):
            response = self.get_response(request)
        cpu, wall = (time.thread_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000
        response["Server-Timing"] = (f'cpu;dur={cpu:.2f}, db;desc="{queries[0]} queries";dur={queries[1] * 1000:.2f}, '
                                     f"app;dur={wall:.2f}")
        return response
