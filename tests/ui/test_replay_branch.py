"""`replay` of a branched session re-streams its active branch, whatever branch was recorded last, and the chat goes
on from that branch."""

from __future__ import annotations

from pathlib import Path

import pytest

from chatterm.cassette.vcr_yaml import write_vcr
from chatterm.ui.widgets.messages import UserMessage
from tests.faultserver import FaultServer
from tests.test_branches import branched
from tests.ui.helpers import app_for, send, wait_for


@pytest.mark.parametrize("speed", ["instant", "4x"])
async def test_replay_streams_the_active_branch(faults: FaultServer, tmp_path: Path, speed: str) -> None:
    path = tmp_path / "branched.yaml"
    path.write_bytes(write_vcr(branched()))  # 1 > 2 and 1 > 3, the branch 1 > 2 chosen last
    app = app_for(faults.url("ok"), replay=path, speed=speed)
    async with app.run_test(size=(100, 36)) as pilot:
        screen = app.chat_screen

        def finished() -> bool:
            children = list(screen.conversation_view.children)
            return bool(children) and "Replay finished" in str(children[-1].render())

        await wait_for(pilot, finished)
        assert [m.text for m in screen.query(UserMessage)] == ["one", "two"]
        await send(pilot, app, "and now?")
        await wait_for(pilot, lambda: len(faults.seen) == 1)
        assert [m["content"] for m in faults.seen[-1].body["messages"]] == ["one", "hi", "two", "hi", "and now?"]
