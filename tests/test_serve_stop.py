"""A server stopped while it plays an answer (the offline demo's, when the app quits mid-answer) ends quietly: on
Python 3.11 a connection left to be cancelled printed a traceback on the terminal the app had just given back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chatterm

STOPPED_MID_ANSWER = """
import asyncio, sys
from pathlib import Path
from chatterm.cassette.load import load_recording
from chatterm.cassette.serve import ReplayServer

async def main() -> None:
    server = ReplayServer(load_recording(Path(sys.argv[1])), speed=0.05)
    port = int((await server.start()).rsplit(":", 1)[1].split("/")[0])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "the computer terminal"}]}'
    head = b"POST /v1/chat/completions HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\n"
    writer.write(head + b"Content-Length: %d\\r\\n\\r\\n%s" % (len(body), body))
    await writer.drain()
    assert b"200" in await reader.read(200), "the answer has started"
    await server.stop()
    print("stopped")

asyncio.run(main())
"""


def test_a_server_stopped_mid_answer_ends_without_a_traceback() -> None:
    demo = Path(chatterm.__file__).parent / "demo" / "terminal_history.yaml"
    done = subprocess.run(
        [sys.executable, "-c", STOPPED_MID_ANSWER, str(demo)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "stopped", done.stderr
    assert done.stderr == "", "nothing on the terminal but what the app printed"
