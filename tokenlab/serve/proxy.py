"""`tokens proxy`: an agent's model base URL that compresses tool results on their way.

HTTP plumbing only; what changes in a request is `agent.proxy_rewrite` (which values are
tool results) and `agent.proxy_compress` (their visible text, the same bytes every time).

- Requests to the Anthropic Messages API (`/v1/messages`, `/v1/messages/count_tokens`) go
  to the Anthropic upstream, OpenAI Chat Completions and Responses to the OpenAI one. Any
  other path passes through unchanged, to the Anthropic upstream when the request carries
  Anthropic's headers (`x-api-key`, `anthropic-version`), else to the OpenAI one.
- The request keeps its method, path, query and headers (hop-by-hop headers aside, and
  `Host` and `Content-Length`, which are the new connection's). A body with nothing to
  change is forwarded as the client's own bytes. A gzip or deflate body is read through its
  encoding; when something changed, it is sent decoded (no `Content-Encoding`), so the
  same request gives the same bytes.
- The response comes back as the upstream sent it: status, headers, and the body's bytes
  as they arrive (SSE events are flushed one read at a time). A body without a length is
  relayed in chunks, which a client reassembles to the same bytes.
- Nothing here logs a request line or a header: keys and authorization headers are only
  copied onto the upstream request. An unreachable upstream answers 502 in that API's own
  error shape.
- Bound to loopback, it answers only loopback Host headers (403 otherwise), so a web page
  cannot reach it through DNS rebinding.

Standard library only (`http.server`, `http.client`), one thread per client connection,
which keeps its own connection to each upstream alive: the proxy adds no dependency to the
base install, and a request costs no new TCP or TLS handshake.
"""

from __future__ import annotations

import gzip
import http.client
import json
import logging
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tokenlab.agent.proxy_compress import DEFAULT_MIN_TOKENS, ResultCompressor
from tokenlab.agent.proxy_rewrite import Api, api_for, rewrite
from tokenlab.serve import LOOPBACK_HOSTS

if TYPE_CHECKING:
    from tokenlab.store import Store

LOG = logging.getLogger("tokenlab.proxy")
DEFAULT_LISTEN = "127.0.0.1:8787"
ANTHROPIC_UPSTREAM = "https://api.anthropic.com"
OPENAI_UPSTREAM = "https://api.openai.com"
UPSTREAM_TIMEOUT = 600.0  # seconds without a byte from the upstream; a long generation streams
READ_SIZE = 64 << 10
# Headers of one connection, never forwarded (RFC 9110 7.6.1), and the ones rebuilt here.
_HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
     "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length"}
)  # fmt: skip
_NO_BODY = frozenset({204, 304})


@dataclass(frozen=True)
class ProxySettings:
    anthropic: str = ANTHROPIC_UPSTREAM
    openai: str = OPENAI_UPSTREAM
    only_newest: bool = False  # measured cheaper: bench/RESULTS.md, "tokens proxy and the prompt cache"
    min_tokens: int = DEFAULT_MIN_TOKENS


class ProxyServer(ThreadingHTTPServer):
    """The proxy on `address`; `serve_forever()` runs it (one thread per connection)."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], settings: ProxySettings, store: Store) -> None:
        super().__init__(address, _Handler)
        self.host = address[0]
        self.settings = settings
        self.store = store

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.server_address[1]}"


def parse_listen(value: str) -> tuple[str, int]:
    """`HOST:PORT` (or `:PORT` for loopback) as an address; ValueError when it is neither."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen takes HOST:PORT, not {value!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms wait between them
    server_version = "tokenlab-proxy/1"
    server: ProxyServer

    def log_message(self, format: str, *args: Any) -> None:
        return  # a request line may carry a key in its query string: nothing is logged per request

    def do_POST(self) -> None:
        self._forward()

    do_GET = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = do_POST

    def _forward(self) -> None:
        api = api_for(urlsplit(self.path).path)
        body = self._read_body()
        if (
            self.server.host in LOOPBACK_HOSTS
            and _host_name(self.headers.get("Host", "")) not in LOOPBACK_HOSTS
        ):
            self._error(
                api, 403, "Forbidden", "tokens proxy: a loopback proxy answers loopback Host names only"
            )
            return
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP]
        if api is not None and self.command == "POST" and body:
            body, headers = self._rewritten(api, body, headers)
        upstream = self._upstream(api)
        try:
            connection, response = self._send(upstream, body, headers)
        except OSError as error:
            LOG.warning("tokenlab proxy: upstream %s unreachable (%s)", upstream, type(error).__name__)
            message = f"tokens proxy: the upstream {upstream} is unreachable ({type(error).__name__})"
            self._error(api, 502, "Bad Gateway", message)
            return
        try:
            with response:
                self._relay(response)
        except BaseException:
            connection.close()
            raise
        if response.will_close:
            connection.close()
        else:
            self._kept[urlsplit(upstream).netloc] = connection

    def setup(self) -> None:
        super().setup()
        # This client connection's kept-alive connections to the upstreams, by host: a new
        # TCP and TLS handshake per request would cost more than everything else here.
        self._kept: dict[str, http.client.HTTPConnection] = {}

    def finish(self) -> None:
        for connection in self._kept.values():
            connection.close()
        super().finish()

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return b"".join(_chunks(self.rfile))
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _rewritten(
        self, api: Api, body: bytes, headers: list[tuple[str, str]]
    ) -> tuple[bytes, list[tuple[str, str]]]:
        """The body with its tool results compressed, and its headers; as they were when
        nothing changed or the body cannot be read."""
        settings = self.server.settings
        encoding = (self.headers.get("Content-Encoding") or "").strip().lower()
        try:
            plain = _decoded(body, encoding)
        except (OSError, zlib.error, EOFError):
            return body, headers
        if plain is None:
            return body, headers  # an encoding not read here (zstd, br): forwarded as it is
        compressor = ResultCompressor(
            self.server.store, api, only_newest=settings.only_newest, min_tokens=settings.min_tokens
        )
        try:
            result = rewrite(plain, api, compressor)
        except Exception as error:  # noqa: BLE001 - the request goes through as sent
            LOG.warning("tokenlab proxy: request forwarded as sent (%s)", type(error).__name__)
            return body, headers
        if not result.changed:
            return body, headers
        return result.body, [(k, v) for k, v in headers if k.lower() != "content-encoding"]

    def _upstream(self, api: Api | None) -> str:
        settings = self.server.settings
        if api is Api.ANTHROPIC:
            return settings.anthropic
        if api is not None:
            return settings.openai
        anthropic = "x-api-key" in self.headers or "anthropic-version" in self.headers
        return settings.anthropic if anthropic else settings.openai

    def _send(
        self, upstream: str, body: bytes, headers: list[tuple[str, str]]
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """The request sent upstream, on the kept connection when there is one; a kept
        connection the upstream closed while idle is replaced once."""
        parts = urlsplit(upstream)
        kept = self._kept.pop(parts.netloc, None)
        if kept is not None:
            try:
                return kept, self._request(kept, parts.path, body, headers)
            except (ConnectionResetError, BrokenPipeError):  # http.client.RemoteDisconnected too
                kept.close()
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = kind(parts.netloc, timeout=UPSTREAM_TIMEOUT)
        try:
            return connection, self._request(connection, parts.path, body, headers)
        except BaseException:
            connection.close()
            raise

    def _request(
        self, connection: http.client.HTTPConnection, prefix: str, body: bytes, headers: list[tuple[str, str]]
    ) -> http.client.HTTPResponse:
        connection.putrequest(self.command, prefix.rstrip("/") + self.path, skip_accept_encoding=True)
        for name, value in headers:
            connection.putheader(name, value)
        if body or self.command in ("POST", "PUT", "PATCH"):
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body or None)
        return connection.getresponse()

    def _relay(self, response: http.client.HTTPResponse) -> None:
        """The upstream's answer, its body's bytes as they arrive."""
        self.send_response_only(response.status, response.reason)
        length = response.getheader("Content-Length")
        for name, value in response.getheaders():
            if name.lower() not in _HOP_BY_HOP:
                self.send_header(name, value)
        bodyless = self.command == "HEAD" or response.status in _NO_BODY or 100 <= response.status < 200
        chunked = not bodyless and length is None
        if length is not None:
            self.send_header("Content-Length", length)
        elif chunked:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if bodyless:
            return
        while data := response.read1(READ_SIZE):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
            self.wfile.flush()
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    def _error(self, api: Api | None, status: int, reason: str, message: str) -> None:
        payload = json.dumps(upstream_error(api, message)).encode("utf-8")
        self.send_response_only(status, reason)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)


def upstream_error(api: Api | None, message: str) -> dict[str, Any]:
    """An error body in the shape the client's own SDK reads for that API (`shapes.ProxyAnthropicErrorOut`,
    `shapes.ProxyOpenAIErrorOut`)."""
    if api is Api.ANTHROPIC:
        return {"type": "error", "error": {"type": "api_error", "message": message}}
    return {"error": {"message": message, "type": "api_error", "param": None, "code": None}}


def _host_name(host: str) -> str:
    """The name in a Host header, without its port (`[::1]:8787` is `::1`)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def _decoded(body: bytes, encoding: str) -> bytes | None:
    if encoding in ("", "identity"):
        return body
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    return None


def _chunks(stream: Any) -> Iterable[bytes]:
    """A chunked request body's chunks (trailers read and dropped)."""
    while True:
        size = int(stream.readline().split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while stream.readline() not in (b"\r\n", b"\n", b""):
                pass
            return
        yield stream.read(size)
        stream.readline()
