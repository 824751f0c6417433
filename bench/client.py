"""The benchmark's client: phones, the host and the organizer as a real HTTP + WebSocket client
(aiohttp) sees the server, over loopback, every phase bounded in count and time.

Each browser is a session cookie made by ``bench.dataset`` plus a CSRF cookie/header pair, as a
phone that opened its join link has; sockets send the site's own ``Origin``.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
import uuid
from collections import deque
from dataclasses import dataclass, field

import aiohttp

from bench.dataset import level_code, team_spelling

CSRF = "benchcsrftokenbenchcsrftoken0123"  # 32 characters: a valid CSRF secret
REQUEST_TIMEOUT_S = 20
CODE_TEXT = re.compile(r"G\d\d[QWERTYUIqwertyui]{8}D")


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def cookies(session_key: str | None) -> dict[str, str]:
    jar = f"csrftoken={CSRF}"
    if session_key:
        jar += f"; sessionid={session_key}"
    return {"Cookie": jar, "X-CSRFToken": CSRF, "Accept": "application/json",
            "Accept-Language": "en"}


# A session that holds sockets has no connection limit: every open socket holds one of the
# connector's connections, and a dropped one (the storm aborts its transport) until it is closed,
# so a limit of 1 100 let exactly 1 100 of 2 000 sockets open and the host's write wait for a
# free connection until it timed out, and the storm's 600 new sockets find only 400 free. The
# load itself is bounded by the scenario (handshakes in batches, one code in flight per team).
UNLIMITED = 0


def http_session(limit: int) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=limit, force_close=False),
        cookie_jar=aiohttp.DummyCookieJar(),
        timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S))


@dataclass
class Calls:
    """Outcomes of a batch of requests."""

    latencies: list[float] = field(default_factory=list)  # seconds, every answered request
    ok: int = 0
    refused: int = 0  # 4xx: a refusal (for a valid code: a wrong refusal)
    server_errors: int = 0  # 5xx
    failed: int = 0  # no answer (timeout, reset)
    refusals: list[str] = field(default_factory=list)

    def add(self, status: int | None, seconds: float, detail: str = "") -> None:
        if status is None:
            self.failed += 1
            return
        self.latencies.append(seconds)
        if status >= 500:
            self.server_errors += 1
        elif status >= 400:
            self.refused += 1
            if len(self.refusals) < 5:
                self.refusals.append(f"{status} {detail[:160]}")
        else:
            self.ok += 1


async def call(http: aiohttp.ClientSession, calls: Calls, method: str, url: str, *,
               headers: dict, json: dict | None = None, redirects: bool = True) -> dict | None:
    t = time.perf_counter()
    try:
        async with http.request(method, url, headers=headers, json=json,
                                allow_redirects=redirects) as resp:
            body = await resp.read()
            status = resp.status
    except (TimeoutError, aiohttp.ClientError):
        calls.add(None, time.perf_counter() - t)
        return None
    calls.add(status, time.perf_counter() - t, body.decode(errors="replace"))
    if status >= 300:
        return None
    try:
        import json as json_

        return json_.loads(body)
    except ValueError:
        return {}


# --- the GoRoD teams as the client plays them -------------------------------------------------


class Night:
    """Every team's progress as this client drives it: the level it is on, whether its next
    code is a wrong one or its level's own (spelt the team's way), one request in flight per
    team at most (a phone waits for its answer)."""

    def __init__(self, manifest: dict, wrong_per_level: int):
        self.game = manifest["gorod"]["id"]
        self.levels = manifest["gorod"]["levels"]
        self.teams = manifest["gorod"]["teams"]
        self.wrong_per_level = wrong_per_level
        self.sent_wrong = {t["application"]: 0 for t in self.teams}
        self.idle = deque(t for t in self.teams)
        self.sent_accepted: dict[str, float] = {}  # code text → when it was sent

    def next(self) -> tuple[dict, str, bool] | None:
        """The next idle team that still has a level to play, its code, and whether that code
        must be accepted."""
        for _ in range(len(self.idle)):
            team = self.idle.popleft()
            if team["level"] > self.levels:
                continue
            app = team["application"]
            if self.sent_wrong[app] < self.wrong_per_level:
                self.sent_wrong[app] += 1
                return team, f"wrong{uuid.uuid4().hex[:8]}", False
            return team, team_spelling(level_code(team["level"]), team["index"]), True
        return None

    def done(self, team: dict, accepted: bool, answered: bool) -> None:
        if answered and accepted:
            team["level"] += 1
            self.sent_wrong[team["application"]] = 0
        self.idle.append(team)

    async def submit(self, http, base: str, calls: Calls, wrongly_refused: list) -> bool:
        picked = self.next()
        if picked is None:
            return False
        team, text, must_accept = picked
        phone = team["phones"][team["level"] % len(team["phones"])]
        if must_accept:
            self.sent_accepted[text] = time.perf_counter()
        refused_before = calls.refused
        body = await call(http, calls, "POST", f"{base}/gorod/api/games/{self.game}/code/",
                          headers=cookies(phone), json={"text": text,
                                                        "client_id": str(uuid.uuid4())})
        verdict = body.get("verdict") if isinstance(body, dict) else None
        if must_accept and (calls.refused > refused_before
                            or (body is not None and verdict != "accepted")):
            wrongly_refused.append(text)
        self.done(team, must_accept and verdict == "accepted", body is not None)
        return True


# --- scenario 1: HTTP throughput at a number of connections ----------------------------------


async def throughput(urls: list[str], request, *, connections: int, count: int,
                     seconds: float) -> dict:
    """``connections`` clients, each sending ``request(http, base, calls)`` back to back until
    ``count`` requests were sent or ``seconds`` passed. Requests go round robin over ``urls``
    (the workers, as a balancer would spread them)."""
    calls = Calls()
    sent = 0
    deadline = time.perf_counter() + seconds

    async with http_session(connections) as http:
        async def client(i: int) -> None:
            nonlocal sent
            while sent < count and time.perf_counter() < deadline:
                sent += 1
                if await request(http, urls[sent % len(urls)], calls) is False:
                    return
        t = time.perf_counter()
        await asyncio.gather(*(client(i) for i in range(connections)))
        elapsed = time.perf_counter() - t
    answered = calls.ok + calls.refused + calls.server_errors
    return {"rps": answered / elapsed if elapsed else 0.0, "n": answered, "ok": calls.ok,
            "refused": calls.refused, "server_errors": calls.server_errors,
            "failed": calls.failed, "latencies": calls.latencies, "refusals": calls.refusals}


def get(path: str, session_key: str | None = None, *, redirects: bool = True):
    """A GET of ``path``; ``redirects=False`` measures a redirect itself, not where it goes."""
    async def request(http, base, calls):
        await call(http, calls, "GET", base + path, headers=cookies(session_key),
                   redirects=redirects)
    return request


class KothRounds:
    """King of the Hill answers with the questions rotating: every team answers the open
    question once; then the host judges the group, closes and announces the next one (the
    host's calls are not counted as answers)."""

    def __init__(self, manifest: dict):
        self.game = manifest["koth"]["id"]
        self.teams = manifest["koth"]["teams"]
        self.host = manifest["host_session"]
        self.question = 1
        self.pending = deque(self.teams)
        self.lock = asyncio.Lock()
        self.host_calls = Calls()

    async def rotate(self, http, base: str) -> None:
        api = f"{base}/koth/api/games/{self.game}"
        h = cookies(self.host)
        await call(http, self.host_calls, "POST", f"{api}/judge/", headers=h,
                   json={"question": self.question, "normalized": "нет", "verdict": False})
        await call(http, self.host_calls, "POST", f"{api}/close/", headers=h, json={})
        await call(http, self.host_calls, "POST", f"{api}/announce/", headers=h,
                   json={"answer_key": "да"})
        self.question += 1
        self.pending = deque(self.teams)

    async def finish(self, base: str) -> None:
        if len(self.pending) < len(self.teams):
            async with http_session(2) as http:
                await self.rotate(http, base)

    async def answer(self, http, base: str, calls: Calls):
        while not self.pending:
            async with self.lock:  # the last answer's sender rotates; the others wait
                if not self.pending and self.in_flight == 0:
                    await self.rotate(http, base)
            if not self.pending:
                await asyncio.sleep(0.005)
        team = self.pending.popleft()
        self.in_flight += 1
        try:
            await call(http, calls, "POST", f"{base}/koth/api/games/{self.game}/answer/",
                       headers=cookies(team["phones"][0]),
                       json={"text": "нет", "client_id": str(uuid.uuid4())})
        finally:
            self.in_flight -= 1

    in_flight = 0


# --- sockets ---------------------------------------------------------------------------------


@dataclass
class Socket:
    """One open page's socket: when each message arrived, its version, the largest size."""

    ws: aiohttp.ClientWebSocketResponse
    versions: list[tuple[float, int]] = field(default_factory=list)
    largest: int = 0
    messages: int = 0
    closed_code: int | None = None
    task: asyncio.Task | None = None
    on_text: object = None
    path: str = ""

    @property
    def version(self) -> int:
        return self.versions[-1][1] if self.versions else 0

    async def read(self) -> None:
        async for msg in self.ws:
            now = time.perf_counter()
            if msg.type == aiohttp.WSMsgType.TEXT:
                data = msg.data
                self.messages += 1
                self.largest = max(self.largest, len(data.encode()))
                match = VERSION.search(data, 0, 200)
                if match:
                    self.versions.append((now, int(match.group(1))))
                if self.on_text is not None:
                    self.on_text(now, data)
            elif msg.type in (aiohttp.WSMsgType.ERROR, aiohttp.WSMsgType.CLOSE):
                break
        self.closed_code = self.ws.close_code


VERSION = re.compile(r'"version":(\d+)')


async def open_socket(http: aiohttp.ClientSession, base: str, path: str,
                      session_key: str | None, timeout: float = 30, on_text=None) -> Socket:
    headers = {"Cookie": cookies(session_key)["Cookie"]}
    ws = await http.ws_connect(base.replace("http", "ws", 1) + path, origin=base,
                               headers=headers, max_msg_size=0, timeout=aiohttp.ClientWSTimeout(
                                   ws_receive=None, ws_close=5), autoping=True,
                               heartbeat=None, compress=0)
    sock = Socket(ws, on_text=on_text, path=path)
    sock.task = asyncio.get_running_loop().create_task(sock.read())
    return sock


async def open_many(http, targets: list[tuple[str, str, str | None]], *, batch: int = 200,
                    on_text=None, within: float = 60) -> tuple[list[Socket], int]:
    """Open ``(base, path, session)`` sockets, ``batch`` handshakes at a time, for at most
    ``within`` seconds in all; returns the open ones and how many did not open (refused,
    failed or still waiting when the time was up)."""
    gate = asyncio.Semaphore(batch)

    async def one(target):
        async with gate:
            return await open_socket(http, *target, on_text=on_text)

    tasks = [asyncio.ensure_future(one(t)) for t in targets]
    done, pending = await asyncio.wait(tasks, timeout=within)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    socks = [t.result() for t in tasks if t in done and t.exception() is None]
    return socks, len(targets) - len(socks)


async def wait_first(socks: list[Socket], timeout: float) -> list[float | None]:
    """When each socket got its first message (its state), or None within ``timeout``."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline and any(not s.versions for s in socks):
        await asyncio.sleep(0.01)
    return [s.versions[0][0] if s.versions else None for s in socks]


async def close_all(socks: list[Socket]) -> None:
    for s in socks:
        if s.task is not None:
            s.task.cancel()
    await asyncio.gather(*(s.ws.close() for s in socks), return_exceptions=True)


# --- scenario 2: a GoRoD night ----------------------------------------------------------------


async def night(manifest: dict, urls: list[str], *, rate: float, seconds: float,
                storm: bool = True) -> dict:
    """Every team's phones and the organizer's screen connected; codes at ``rate`` per second
    for ``seconds`` (round robin over the teams, one in flight per team: a slot whose team is
    still waiting is missed, not queued); then, optionally, the phones' reconnect storm."""
    game = manifest["gorod"]["id"]
    night_ = Night(manifest, wrong_per_level=2)
    seen: dict[str, float] = {}
    resyncs: list[asyncio.Task] = []
    reader: dict = {}  # the HTTP session, once open

    def saw(now: float, text: str) -> None:
        for code in CODE_TEXT.findall(text):
            if code in night_.sent_accepted and code not in seen:
                seen[code] = now - night_.sent_accepted[code]

    async def resync() -> None:
        # What the organizer's page does with a push past the limit: it reads the whole state
        # over HTTP (``live.write.LiveGame.message``).
        try:
            async with reader["http"].get(
                    f"{urls[0]}/gorod/api/games/{game}/organizer/state/",
                    headers=cookies(manifest["organizer_session"])) as resp:
                body = await resp.text()
        except (TimeoutError, aiohttp.ClientError):
            return
        saw(time.perf_counter(), body)

    def organizer_text(now: float, text: str) -> None:
        if '"resync":true' in text[:200]:
            resyncs.append(asyncio.get_running_loop().create_task(resync()))
            return
        saw(now, text)

    result: dict = {}
    async with http_session(UNLIMITED) as http:
        reader["http"] = http
        phones = [(urls[i % len(urls)], f"/ws/gorod/{game}/team/", phone)
                  for i, phone in enumerate(p for t in night_.teams for p in t["phones"])]
        t = time.perf_counter()
        socks, failed_open = await open_many(http, phones)
        firsts = await wait_first(socks, 30)
        result["phones_connected"] = sum(1 for f in firsts if f is not None)
        result["phones_connect_s"] = time.perf_counter() - t
        result["phones_failed_open"] = failed_open
        organizer = await open_socket(http, urls[0], f"/ws/gorod/{game}/organizer/",
                                      manifest["organizer_session"], on_text=organizer_text)
        await wait_first([organizer], 30)
        calls, wrongly, tasks = Calls(), [], set()
        interval, missed, n = 1.0 / rate, 0, 0
        start = time.perf_counter()
        while True:
            due = start + n * interval
            if due > start + seconds:
                break
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if not night_.idle:
                missed += 1
            else:
                task = asyncio.get_running_loop().create_task(
                    night_.submit(http, urls[n % len(urls)], calls, wrongly))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            n += 1
        if tasks:
            await asyncio.wait(tasks, timeout=REQUEST_TIMEOUT_S + 5)
        elapsed = time.perf_counter() - start
        await asyncio.sleep(1.0)  # the last pushes
        if resyncs:
            await asyncio.wait(resyncs, timeout=REQUEST_TIMEOUT_S)
        answered = calls.ok + calls.refused + calls.server_errors
        result.update({
            "target_rate": rate, "seconds": seconds, "achieved_rate": answered / elapsed,
            "sent": n - missed, "missed_slots": missed, "ok": calls.ok,
            "refused": calls.refused, "server_errors": calls.server_errors,
            "failed": calls.failed, "wrongly_refused": len(wrongly),
            "refusals": calls.refusals, "latencies": calls.latencies,
            "accepted_sent": len(night_.sent_accepted), "accepted_seen": len(seen),
            "organizer_delays": list(seen.values()),
            "organizer_largest": organizer.largest, "organizer_closed": organizer.closed_code,
            "organizer_messages": organizer.messages, "organizer_resyncs": len(resyncs),
            "phone_largest": max((s.largest for s in socks), default=0),
        })
        await close_all([organizer])
        if storm:
            result["storm"] = await reconnect_storm(http, socks, phones)
        else:
            await close_all(socks)
    return result


async def reconnect_storm(http, socks: list[Socket], targets, timeout: float = 10) -> dict:
    """Every phone drops at once (no close handshake, as a lost network) and reconnects at
    once; how long until each has its state again."""
    for s in socks:
        if s.task is not None:
            s.task.cancel()
        # aiohttp keeps the upgraded connection as ``_conn``; aborting its transport drops
        # the TCP connection without a close frame, as a phone losing its network does.
        conn = getattr(s.ws, "_conn", None)
        if conn is not None and conn.transport is not None:
            conn.transport.abort()
        else:
            raise RuntimeError("cannot drop a socket: aiohttp's connection is not reachable")
    await asyncio.sleep(0.2)
    t = time.perf_counter()
    results = await asyncio.gather(*(open_socket(http, b, p, k, timeout=timeout)
                                     for b, p, k in targets), return_exceptions=True)
    fresh = [r for r in results if isinstance(r, Socket)]
    firsts = await wait_first(fresh, max(0.1, timeout - (time.perf_counter() - t)))
    times = [f - t for f in firsts if f is not None]
    await close_all(fresh)
    return {"phones": len(targets), "with_state": len(times),
            "open_failed": len(results) - len(fresh), "times": times}


# --- scenario 3: fan-out ----------------------------------------------------------------------


async def fanout(manifest: dict, urls: list[str], *, sockets: int, changes: int,
                 connected_hook=None) -> dict:
    """``sockets`` pages on one King of the Hill game — half projectors (the public group),
    half team phones (the team groups) — spread over the workers; the host closes the open
    question and announces the next, ``changes`` times in all; for every change, how long until
    each socket holds a newer version than before it."""
    game = manifest["koth"]["id"]
    phones = [p for t in manifest["koth"]["teams"] for p in t["phones"]]
    half = min(sockets // 2, len(phones))
    targets = [(urls[i % len(urls)], f"/ws/koth/{game}/team/", phones[i]) for i in range(half)]
    targets += [(urls[i % len(urls)], f"/ws/koth/{game}/public/", None)
                for i in range(sockets - half)]
    host = cookies(manifest["host_session"])
    api = f"{urls[0]}/koth/api/games/{game}"
    public_times, team_times, responses, missing = [], [], [], 0
    async with http_session(UNLIMITED) as http:
        t = time.perf_counter()
        socks, failed_open = await open_many(http, targets)
        firsts = await wait_first(socks, 60)
        connect_s = time.perf_counter() - t
        connected = sum(1 for f in firsts if f is not None)
        if connected_hook is not None:  # e.g. a profiler that should see only the changes
            connected_hook()
        calls = Calls()
        for i in range(changes):
            await asyncio.sleep(0.5)
            before = [s.version for s in socks]
            action = "close" if i % 2 == 0 else "announce"
            t0 = time.perf_counter()
            await call(http, calls, "POST", f"{api}/{action}/", headers=host,
                       json={} if action == "close" else {"answer_key": "да"})
            responses.append(time.perf_counter() - t0)
            deadline = t0 + 10
            while time.perf_counter() < deadline and any(
                    s.version <= b for s, b in zip(socks, before, strict=True)):
                await asyncio.sleep(0.01)
            for s, b in zip(socks, before, strict=True):
                arrived = next((at for at, v in s.versions if v > b), None)
                if arrived is None:
                    missing += 1
                    continue
                (team_times if "/team/" in s.path else public_times).append(arrived - t0)
        largest = max((s.largest for s in socks), default=0)
        dropped = sum(1 for s in socks if s.task is not None and s.task.done())
        await close_all(socks)
    return {"sockets": sockets, "connected": connected, "failed_open": failed_open,
            "connect_s": connect_s, "changes": changes, "missing": missing,
            "dropped": dropped, "public": public_times, "team": team_times,
            "all": public_times + team_times, "write_response": responses,
            "write_errors": calls.server_errors + calls.refused + calls.failed,
            "largest": largest}


def summary(values: list[float]) -> dict:
    return {"p50": pct(values, 50), "p95": pct(values, 95), "p99": pct(values, 99),
            "max": max(values) if values else None,
            "mean": statistics.fmean(values) if values else None}
