"""What a request to the web app must be before any route reads it: for this server's host names, from its own
origin, and small.

A browser sends a page's requests to any address the page names, and a name can be made to resolve to
127.0.0.1 (DNS rebinding), so the `Guard` answers only requests whose `Host` is one of the server's own names
(403 otherwise), takes a state-changing request (POST) only from its own origin (an `Origin` header, when
sent, naming the same host) and only as `Content-Type: application/json` (which another origin's page cannot
send without a CORS preflight this server never grants). `read_json` takes a body of at most `BODY_LIMIT`
bytes, nested at most `DEPTH_LIMIT` deep, refused before parsing. `LaunchKey` is the per-launch secret of the
start link, kept by the browser as an HttpOnly, SameSite=Strict cookie.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import socket
from collections.abc import Iterable

from starlette.requests import Request
from starlette.responses import JSONResponse

from fruit_envs.core.validate import quoted

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")
BODY_LIMIT = 64 * 1024  # bytes of a request body: the largest this app needs is well under 1 KiB
DEPTH_LIMIT = 32  # nesting of a request body's JSON: this app's are at most 2 deep
KEY_HEADER = "x-fruit-envs-key"
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # a seat's link and the start link are secrets
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
        b"frame-ancestors 'none'",
    ),
]


class Refused(ValueError):
    """A request refused before it reaches a route: `status` is its HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def host_names(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """The `Host` header values a server bound to `host`:`port` answers: the loopback names, `host` itself, on a
    wildcard address this machine's name and addresses, and `extra` (names a proxy or DNS gives it)."""
    names = [*LOOPBACK_NAMES]
    if host in WILDCARDS:
        names += _machine_names()
    else:
        names.append(f"[{host}]" if ":" in host and not host.startswith("[") else host)
    names += [name.strip() for name in extra if name.strip()]
    with_port = [f"{name}:{port}".lower() for name in names]
    if port == 80:
        with_port += [name.lower() for name in names]
    return list(dict.fromkeys(with_port))


def _machine_names() -> list[str]:
    names = [socket.gethostname(), socket.getfqdn()]
    try:
        names += socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        pass
    return [name for name in names if name]


class Guard:
    """ASGI middleware: the host, origin and content-type checks above, and headers that keep the pages from
    being framed, sniffed or leaking their links. `hosts`: the accepted `Host` values, each `name:port`, or a
    bare `name` for any port."""

    def __init__(self, app, hosts: Iterable[str]):
        self.app = app
        self.hosts = {h.lower() for h in hosts}
        self.shown = ", ".join(sorted(self.hosts))

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        try:
            self.check(Request(scope))
        except Refused as error:
            return await JSONResponse({"error": str(error)}, status_code=error.status)(scope, receive, secured(send))
        return await self.app(scope, receive, secured(send))

    def check(self, request: Request) -> None:
        host = request.headers.get("host", "").lower()
        name = host if host.endswith("]") else host.rsplit(":", 1)[0]  # a bare entry takes any port
        if host not in self.hosts and name not in self.hosts:
            raise Refused(
                f"this server answers only to its own names ({self.shown}), not Host {quoted(host)}: open it by "
                "the link it printed at launch",
                403,
            )
        if request.method in ("GET", "HEAD"):
            return
        origin = request.headers.get("origin")
        if origin is not None and origin.lower() not in (f"http://{host}", f"https://{host}"):
            raise Refused(f"a request from another site ({quoted(origin)}) may not change anything here", 403)
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise Refused(f"send the request body as JSON with Content-Type: application/json, not {quoted(kind)}", 415)
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > BODY_LIMIT):
            raise Refused(f"a request body may hold at most {BODY_LIMIT} bytes, this one says {quoted(size)}", 413)


def secured(send):
    """`send` adding `SECURITY_HEADERS` to the response's start."""

    async def sending(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
        await send(message)

    return sending


async def read_json(request: Request) -> dict:
    """The request body as a JSON object, read only up to `BODY_LIMIT` bytes and parsed only when nested at
    most `DEPTH_LIMIT` deep; a `Refused` (413, 400) naming what was wrong otherwise."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > BODY_LIMIT:
            raise Refused(f"a request body may hold at most {BODY_LIMIT} bytes", 413)
        chunks.append(chunk)
    raw = b"".join(chunks)
    depth = nesting(raw)
    if depth > DEPTH_LIMIT:
        raise Refused(f"the request body is nested {depth} deep; at most {DEPTH_LIMIT} is taken")
    try:
        body = json.loads(raw)
    except ValueError:  # bad JSON or bad UTF-8
        raise Refused("the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise Refused("the request body must be a JSON object")
    return body


def nesting(raw: bytes) -> int:
    """How deep the arrays and objects of JSON text `raw` nest (brackets inside strings not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


class LaunchKey:
    """The per-launch secret that lets a browser seat the user's own agents (a model file, a module): printed in
    the start link as `?key=`, turned by the page into a cookie (named for this key, so servers on other ports
    keep theirs), or sent by a script as the `X-Fruit-Envs-Key` header."""

    def __init__(self, value: str | None = None):
        self.value = value or secrets.token_urlsafe(24)
        self.cookie = "fruit_envs_key_" + hashlib.sha256(self.value.encode()).hexdigest()[:12]

    def held_by(self, request: Request) -> bool:
        """Whether `request` carries this key (its cookie or header)."""
        for given in (request.cookies.get(self.cookie), request.headers.get(KEY_HEADER)):
            if given is not None and secrets.compare_digest(given.encode(), self.value.encode()):
                return True
        return False

    def matches(self, given: str) -> bool:
        return secrets.compare_digest(str(given).encode(), self.value.encode())
