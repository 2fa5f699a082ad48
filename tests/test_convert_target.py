"""`chatterm convert IN OUT` never writes over its input, and replaces an existing OUT only when told `--force`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.conftest import SEEDS, assert_one_line_error, run_chatterm

SEED = SEEDS / "xai_grok_simple_streaming.yaml"


def copy_of_seed(tmp_path: Path, name: str = "in.yaml") -> Path:
    path = tmp_path / name
    shutil.copyfile(SEED, path)
    return path


def test_convert_refuses_to_write_over_its_input(tmp_path: Path) -> None:
    source = copy_of_seed(tmp_path)
    before = source.read_bytes()
    (tmp_path / "link.yaml").symlink_to(source)
    os.link(source, tmp_path / "hard.yaml")
    same = [str(source), str(tmp_path / "." / "in.yaml"), str(tmp_path / "link.yaml"), str(tmp_path / "hard.yaml")]
    for target in same:
        for force in ([], ["--force"]):
            result = run_chatterm("convert", str(source), target, "--to", "govcr", *force)
            assert result.code == 2, (target, force, result.stderr)
            assert_one_line_error(result)
            assert "is the input" in result.stderr and target in result.stderr
            assert source.read_bytes() == before, "the input is untouched"


def test_an_existing_output_is_replaced_only_with_force(tmp_path: Path) -> None:
    source = copy_of_seed(tmp_path)
    target = tmp_path / "out.sse"
    target.write_text("mine, keep it\n")
    result = run_chatterm("convert", str(source), str(target))
    assert result.code == 2
    assert_one_line_error(result)
    assert str(target) in result.stderr and "--force" in result.stderr
    assert target.read_text() == "mine, keep it\n"
    result = run_chatterm("convert", str(source), str(target), "--force")
    assert result.code == 0, result.stderr
    assert target.read_text().startswith("data: ")


def test_a_new_output_needs_no_force(tmp_path: Path) -> None:
    source = copy_of_seed(tmp_path)
    result = run_chatterm("convert", str(source), str(tmp_path / "new.yaml"))
    assert result.code == 0, result.stderr
    assert (tmp_path / "new.yaml").read_text().startswith("interactions:")


def test_an_output_that_is_not_a_regular_file_is_never_replaced(tmp_path: Path) -> None:
    source = copy_of_seed(tmp_path)
    fifo = tmp_path / "pipe.sse"
    os.mkfifo(fifo)
    directory = tmp_path / "folder.yaml"
    directory.mkdir()
    for target in (fifo, directory):
        for force in ([], ["--force"]):
            result = run_chatterm("convert", str(source), str(target), *force, timeout=30)
            assert result.code == 2, (target, force, result.stderr)
            assert_one_line_error(result)
            assert "not a regular file" in result.stderr and str(target) in result.stderr
    assert fifo.is_fifo() and directory.is_dir()
