"""Provider-neutral cassettes (format 2): agentci's own chunk stream, replayed without any SDK;
the older Gemini-format cassettes (format 1) are still read and can be converted."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentci.errors import InvalidInput
from agentci.providers.base import ModelChunk, ModelRequest, TextPart, ToolCallPart
from agentci.providers.cassette import load_cassette
from agentci.providers.replay import ReplayProvider
from agentci.testing.cli import agentci, run_recipe
from agentci.usage import Usage

ROOT = Path(__file__).parents[2]
DEMO = ROOT / "examples" / "fix-failing-test"


def _answers(path: Path) -> list[list[ModelChunk]]:
    provider = ReplayProvider.from_file(path)

    async def go() -> list[list[ModelChunk]]:
        out = []
        for _ in range(provider.remaining):
            request = ModelRequest("replay:x", "", [], [])
            out.append([c async for c in provider.stream(request)])
        return out

    return asyncio.run(go())


def test_a_format_2_line_is_replayed_as_the_chunks_it_holds(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    line = {
        "chunks": [
            {
                "parts": [
                    {"kind": "text", "text": "Let me look", "thought": True},
                    {"kind": "text", "text": "Reading."},
                    {"kind": "tool_call", "id": "c1", "name": "read_file",
                     "args": {"file_path": "a.py"}, "signature": "c2ln"},
                ],
                "usage": {"prompt_tokens": 9, "output_tokens": 4},
                "finish": "tool_calls",
                "finish_reason": "tool_calls",
                "model_version": "local-model",
            }
        ]
    }  # fmt: skip
    cassette.write_text('# by hand\n{"agentci_cassette": 2}\n' + json.dumps(line) + "\n")
    ((chunk,),) = _answers(cassette)
    assert chunk == ModelChunk(
        parts=[
            TextPart("Let me look", thought=True),
            TextPart("Reading."),
            ToolCallPart("c1", "read_file", {"file_path": "a.py"}, "c2ln"),
        ],
        usage=Usage(prompt_tokens=9, output_tokens=4),
        finish="tool_calls",
        finish_reason="tool_calls",
        model_version="local-model",
    )


@pytest.mark.parametrize(
    ("header", "chunk", "message"),
    [
        ('{"agentci_cassette": 3}', {"parts": []}, "cassette format 3 is not one this agentci"),
        ('{"agentci_cassette": 2}', {"finish": "done"}, "c.jsonl:2: not a cassette line"),
        ('{"agentci_cassette": 2}', {"parts": [{"kind": "image"}]}, "c.jsonl:2: not a cassette"),
    ],
)
def test_a_bad_format_2_cassette_is_invalid_input_naming_the_line(
    tmp_path: Path, header: str, chunk: dict, message: str
) -> None:
    cassette = tmp_path / "c.jsonl"
    cassette.write_text(f"{header}\n{json.dumps({'chunks': [chunk]})}\n")
    with pytest.raises(InvalidInput, match=message):
        load_cassette(cassette)


def test_the_demos_gemini_cassette_converts_to_the_same_answers(tmp_path: Path) -> None:
    converted = tmp_path / "cassette.jsonl"
    done = agentci("cassette", "convert", str(DEMO / "cassette.jsonl"), str(converted))
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"agentci: {converted}: 6 model call(s), cassette format 2\n"
    assert load_cassette(DEMO / "cassette.jsonl").version == 1
    assert load_cassette(converted).version == 2
    old, new = load_cassette(DEMO / "cassette.jsonl"), load_cassette(converted)
    assert [new.answer(i) for i in range(6)] == [old.answer(i) for i in range(6)]
    assert [c.request for _, c in new] == [c.request for _, c in old]
    assert converted.read_text().startswith("# A model session for the fix-failing-test demo")


def test_converting_a_file_that_is_not_a_cassette_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    done = agentci("cassette", "convert", str(bad), str(tmp_path / "out.jsonl"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"Error: {bad}:1: not a cassette line")
    assert not (tmp_path / "out.jsonl").exists()


def test_the_demo_replayed_from_its_converted_cassette_makes_the_same_patch_without_the_sdk(
    tmp_path: Path,
) -> None:
    """The demo, once from its Gemini-format cassette and once from the converted one: the same
    patch and status; the converted replay never imports google-genai."""
    old = run_recipe(DEMO / "recipe.yaml", tmp_path / "old", cwd=ROOT)
    demo = tmp_path / "examples" / "fix-failing-test"
    shutil.copytree(DEMO, demo, ignore=shutil.ignore_patterns(".agentci"))
    subprocess.run([sys.executable, "-m", "agentci", "cassette", "convert",
                    str(demo / "cassette.jsonl"), str(demo / "cassette.jsonl")], check=True)  # fmt: skip
    code = (
        "import sys; from agentci.cli import cli\n"
        "try:\n    cli(['run', 'examples/fix-failing-test/recipe.yaml', '--out', 'new'])\n"
        "except SystemExit as e:\n    print('exit', e.code)\n"
        "print('google.genai' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.stdout.splitlines()[-2:] == ["exit 0", "False"], done.stderr[-2000:]
    assert old.code == 0, old.stderr
    assert (tmp_path / "new" / "patch.diff").read_text() == old.patch
    new_result = json.loads((tmp_path / "new" / "result.json").read_text())
    assert (new_result["status"], new_result["usage"]) == (
        old.result["status"],
        old.result["usage"],
    )
