"""`chatterm serve`: a recording served as an OpenAI-compatible endpoint, and as the native API it was recorded from.

`GET /v1/models` lists the models that answered the recording's chat turns. `POST /v1/chat/completions` answers with
the recorded turn whose request matches (else the next one in order), in the shape the client asked for, whatever
API the recording holds: `chat.completion.chunk` events for `"stream": true`, one `chat.completion` otherwise
(OpenAI's default). A turn retried is played as the attempt that answered it (the turns `show` counts). A recording
of a native API is answered on that API's path too (`POST /v1/messages`,
`POST /v1beta/models/{model}:streamGenerateContent` and `:generateContent`, `POST /v1/responses`): a stream as it was
recorded, byte for byte, or the whole answer in that API's shape (`native_whole`, `native_stream`); a native path of
another API is answered with an error in that API's shape saying where the recording is served (`native_api`). The
answer carries what `show --json` reports, at the recorded pace (each event at the time its source event was
recorded, divided by the speed; or at once); an OpenAI stream a plain client reads as `show` does is sent byte for
byte (`openai_shape`). It ends as the recording ended: an HTTP error with its status and an OpenAI error, an error
event, a connection cut half way, or no answer at all (`timeline`).

A request `serve` cannot read is answered 400 (`httpserve`), and serving goes on. The same server backs the offline
`demo` profile and the test suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from chatterm.cassette.exchange import answering
from chatterm.cassette.httpserve import (
    MAX_HEAD,
    READ_TIMEOUT,
    BadRequest,
    Chunked,
    HTTPRequest,
    linger,
    read_request,
    send_json,
)
from chatterm.cassette.model import Interaction, Recording
from chatterm.cassette.native_api import (
    ARRAY,
    OPENAI,
    error_payload,
    http_error_body,
    path_api,
    request_shape,
    turn_api,
    wrong_path,
)
from chatterm.cassette.native_stream import stream_of
from chatterm.cassette.native_whole import whole
from chatterm.cassette.openai_shape import (
    DONE,
    ChunkWriter,
    completion,
    http_error_payload,
    reads_as_recorded,
    sse,
)
from chatterm.cassette.openai_shape import (
    error_payload as openai_error,
)
from chatterm.cassette.replay import Matcher, at_pace
from chatterm.cassette.summary import reply_of
from chatterm.cassette.timeline import ANSWERED, CUT, ERROR, HTTP_ERROR, NO_ANSWER, Timeline, timeline
from chatterm.cassette.timing import schedule
from chatterm.decode.body import SSE, body_kind
from chatterm.decode.errors import words_of
from chatterm.decode.safejson import loads

NOT_AGAIN = {"X-Should-Retry": "false"}
"""On an error `serve` makes of a recorded answer: a retry would be played the next recorded turn, not this one."""


class ReplayServer:
    """Serves one recording on a loopback (or chosen) address."""

    def __init__(
        self, recording: Recording, speed: float = 1.0, instant: bool = False, matcher: Matcher | None = None
    ) -> None:
        self.recording = recording
        self.matcher = matcher or Matcher(recording)
        """Which recorded turn answers a request (the offline demo chooses by the prompt: `demo.DemoMatcher`)."""
        self.speed = speed
        self.instant = instant
        self._server: asyncio.Server | None = None
        self._timelines: dict[int, tuple[Timeline, bool]] = {}
        self._serving: set[asyncio.Task[Any]] = set()
        """The connections being served."""
        self.requests = 0
        self.apis = {turn_api(interaction) for interaction in answering(recording.interactions)}
        """The APIs of the recorded turns: each native one is answered on its own path too."""

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Start listening; returns the base URL (`http://host:port/v1`)."""
        self._server = await asyncio.start_server(self._handle, host, port, limit=MAX_HEAD)
        bound = self._server.sockets[0].getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        return f"http://{shown}:{bound[1]}/v1"

    async def serve_forever(self) -> None:
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    async def stop(self) -> None:
        """Stop listening, and end the answers being played (their clients see the connection close)."""
        if self._server is not None:
            self._server.close()
            for task in self._serving:
                task.cancel()
            await asyncio.gather(*self._serving, return_exceptions=True)
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection, which ends quietly when the server stops under it (or its event loop ends): Python 3.11's
        streams report a connection's task that ends cancelled as an error, a traceback on the terminal the app has
        just given back."""
        task = asyncio.current_task()
        assert task is not None
        self._serving.add(task)
        try:
            await self._connection(reader, writer)
        except asyncio.CancelledError:
            pass
        finally:
            self._serving.discard(task)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(READ_TIMEOUT):
                request = await read_request(reader)
            if request is not None:
                self.requests += 1
                await self._route(request, writer)
        except BadRequest as exc:
            await send_json(writer, exc.status, {"error": {"message": str(exc), "type": "invalid_request_error"}})
            await linger(reader)
        except (ConnectionError, TimeoutError, asyncio.IncompleteReadError):
            pass
        except Exception as exc:  # (one turn that cannot be played: its client is told, and serving goes on)
            with contextlib.suppress(ConnectionError, OSError):
                message = f"serve could not play this turn ({type(exc).__name__}: {exc})"
                await send_json(writer, 500, {"error": {"message": message[:300], "type": "server_error"}})
        finally:
            try:
                writer.close()
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    async def _route(self, request: HTTPRequest, writer: asyncio.StreamWriter) -> None:
        path, _, query = request.path.partition("?")
        path = path.rstrip("/")
        api = path_api(path)
        if request.method == "GET" and path.endswith("/models"):
            await send_json(writer, 200, {"object": "list", "data": [_model(m) for m in self.models()]})
        elif request.method == "POST" and api is not None:
            try:
                body = loads(request.body)
            except ValueError:
                raise BadRequest("the request body is not JSON") from None
            if not isinstance(body, dict):
                raise BadRequest("the request body is not a JSON object")
            if api != OPENAI and api not in self.apis:
                await send_json(writer, 404, error_payload(api, 404, wrong_path(self.apis, api)), NOT_AGAIN)
                return
            interaction = self.matcher.match(body)
            if interaction is None:
                await send_json(writer, 404, error_payload(api, 404, "the recording holds no answers"))
            elif api == OPENAI:
                await self._answer(interaction, body.get("stream") is True, writer)
            else:
                await self._answer_native(api, interaction, request_shape(api, path, query, body), writer)
        else:
            await send_json(writer, 404, {"error": {"message": f"no route for {request.method} {path}"}})

    def models(self) -> list[str]:
        seen: dict[str, None] = {}
        for interaction in answering(self.recording.interactions):
            model = reply_of(interaction).model or (interaction.request.model if interaction.request else None)
            if model:
                seen.setdefault(model, None)
        return list(seen) or ["recording"]

    def _timeline(self, interaction: Interaction) -> tuple[Timeline, bool]:
        """The turn's timeline, and whether its recorded bytes may be sent as they are (read once per turn)."""
        if id(interaction) not in self._timelines:
            line = timeline(interaction)
            response = interaction.response
            as_recorded = (
                line.ending in (ANSWERED, ERROR, CUT)
                and body_kind(response.content_type, response.body[:64]) == SSE
                and reads_as_recorded(response.body, line.reply, error_sent=line.ending == ERROR)
            )
            self._timelines[id(interaction)] = (line, as_recorded)
        return self._timelines[id(interaction)]

    async def _answer(self, interaction: Interaction, stream: bool, writer: asyncio.StreamWriter) -> None:
        line, as_recorded = self._timeline(interaction)
        if line.ending == NO_ANSWER or line.ending == HTTP_ERROR or not stream:
            await self._wait(line.end)
        if line.ending == NO_ANSWER:
            return  # (the connection closes without an answer, as it did)
        if line.ending == HTTP_ERROR:
            await self._send_http_error(interaction, line, writer)
        elif not stream:
            await self._send_whole(line, writer)
        elif as_recorded:
            await self._send_recorded(interaction, line, writer)
        else:
            await self._send_chunks(line, writer)

    async def _answer_native(
        self, api: str, interaction: Interaction, shape: str, writer: asyncio.StreamWriter
    ) -> None:
        """The recorded turn in a native API's shape: a stream recorded in that shape as it was recorded, else made
        from the answer (`shape`: SSE, a JSON array of chunks, or one whole answer)."""
        line, _ = self._timeline(interaction)
        response = interaction.response
        recorded_sse = body_kind(response.content_type, response.body[:64]) == SSE
        live = shape == SSE and recorded_sse and line.ending in (ANSWERED, ERROR, CUT)
        if not live:
            await self._wait(line.end)
        if line.ending == NO_ANSWER:
            return
        if line.ending == HTTP_ERROR:
            assert line.error is not None
            await send_json(writer, response.status or 500, http_error_body(api, response.body, line.error))
        elif live:
            await self._send_recorded(interaction, line, writer)
        elif line.error is not None:
            recorded = line.error.status if line.ending == ERROR else None
            status = recorded if recorded is not None and 400 <= recorded <= 599 else 502
            await send_json(writer, status, error_payload(api, status, words_of(line.error)), NOT_AGAIN)
        elif shape == SSE:
            body = Chunked(writer)
            await body.start(200, {"Content-Type": "text/event-stream"})
            await body.send(stream_of(api, whole(api, line.reply)))
            await body.end()
        else:
            answer = whole(api, line.reply)
            await send_json(writer, 200, [answer] if shape == ARRAY else answer)

    async def _wait(self, at: float) -> None:
        if not self.instant and self.speed > 0 and at > 0:
            await asyncio.sleep(at / self.speed)

    async def _send_http_error(self, interaction: Interaction, line: Timeline, writer: asyncio.StreamWriter) -> None:
        recorded = interaction.response
        status = recorded.status or 500
        assert line.error is not None
        headers = {k.lower(): v[0] for k, v in recorded.headers.items() if v}
        passed = {name.title(): headers[name] for name in ("retry-after", "x-request-id") if name in headers}
        await send_json(writer, status, http_error_payload(recorded.body, line.error), passed)

    async def _send_whole(self, line: Timeline, writer: asyncio.StreamWriter) -> None:
        if line.error is None:
            await send_json(writer, 200, completion(line.reply, _model_of(line), "chatcmpl-replay", int(time.time())))
            return
        recorded = line.error.status if line.ending == ERROR else None
        status = recorded if recorded is not None and 400 <= recorded <= 599 else 502
        await send_json(writer, status, openai_error(line.error, code=line.error.status), NOT_AGAIN)

    async def _send_recorded(self, interaction: Interaction, line: Timeline, writer: asyncio.StreamWriter) -> None:
        """The recorded OpenAI stream byte for byte, at its pace."""
        recorded = interaction.response
        headers = {k.lower(): v[0] for k, v in recorded.headers.items() if v}
        body = Chunked(writer)
        await body.start(200, {"Content-Type": headers.get("content-type", "text/event-stream")})
        async for piece in at_pace(schedule(recorded), self.speed, self.instant):
            await body.send(piece)
        await self._finish(body, line)

    async def _send_chunks(self, line: Timeline, writer: asyncio.StreamWriter) -> None:
        """The recorded answer as `chat.completion.chunk` events, each batch at the time of its source."""
        chunks = ChunkWriter(_model_of(line), "chatcmpl-replay", int(time.time()))
        body = Chunked(writer)
        await body.start(200, {"Content-Type": "text/event-stream"})
        async for events in at_pace(line.steps, self.speed, self.instant):
            await body.send(chunks.events(events))
        await body.send(chunks.close())
        if line.ending == ANSWERED:
            await body.send(DONE)
        elif line.ending == ERROR and line.error is not None:
            await body.send(sse(openai_error(line.error, code=line.error.status)))
        await self._finish(body, line)

    async def _finish(self, body: Chunked, line: Timeline) -> None:
        if line.ending == CUT:
            body.cut()
        else:
            await body.end()


def _model_of(line: Timeline) -> str:
    return line.reply.model or "recording"


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "chatterm-replay"}
