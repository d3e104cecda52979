"""The Python peer of the accuracy bench: written the way popular Python benchmark clients are.

One coroutine per stream over one aiohttp session, a line iterator over the response body, and
time.perf_counter() (CLOCK_MONOTONIC on Linux, the clock of Node's process.hrtime) read on each
content chunk after the line is read and before it is parsed. Closed loop: each coroutine sends
its next request when its stream ends.

    python3 aiohttp_client.py URL STREAMS REQUESTS BODY  ->  one JSON document on stdout
"""

import asyncio
import json
import sys
import time

import aiohttp


async def one_stream(session, url, body, streams, failures):
    try:
        async with session.post(url, data=body, headers={"content-type": "application/json"}) as response:
            if response.status != 200:
                failures.append(response.status)
                return
            response_id = None
            arrivals = []
            async for line in response.content:
                line = line.strip()
                if not line.startswith(b"data: "):
                    continue
                data = line[6:]
                if data == b"[DONE]":
                    break
                now = time.perf_counter()
                chunk = json.loads(data)
                if response_id is None:
                    response_id = chunk.get("id")
                choices = chunk.get("choices") or []
                if choices and (choices[0].get("delta") or {}).get("content"):
                    arrivals.append(now)
            streams.append((response_id, arrivals))
    except (aiohttp.ClientError, asyncio.TimeoutError) as error:
        failures.append(str(error))


async def main():
    url, concurrency, requests, body = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    streams, failures = [], []
    issued = 0
    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=600)
    cpu_start = time.process_time()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def worker():
            nonlocal issued
            while issued < requests:
                issued += 1
                await one_stream(session, url, body, streams, failures)

        await asyncio.gather(*(worker() for _ in range(min(concurrency, requests))))
    cpu_us = (time.process_time() - cpu_start) * 1e6
    # perf_counter() is in seconds: whole nanoseconds (a double keeps them for ~104 days of uptime)
    origin = min((a[0] for _, a in streams if a), default=0.0)
    origin_ns = int(origin * 1e9)
    document = {
        "originNs": str(origin_ns),
        "streams": [
            {"id": rid, "ns": [round(t * 1e9) - origin_ns for t in arrivals], "tokens": None}
            for rid, arrivals in streams
            if rid is not None
        ],
        "failed": len(failures),
        "cpuUs": cpu_us,
        "loop": None,
    }
    json.dump(document, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main())
