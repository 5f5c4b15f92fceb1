"""A file the agent makes outside ``guards.allowed_paths`` with a name that is not UTF-8
(``b"caf\\xe9.txt"``): the guard reverts it and tells the model, and the run goes on. The path
matcher took only valid UTF-8 and ended the run internal_error (exit 70) with the patch lost;
the model's follow-up now names the file with U+FFFD, which the model API takes (the Gemini
provider through the real SDK, against the fake server)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from e2e_scenario import jsonl_lines

from agentci.testing.cli import run_recipe
from agentci.testing.fake_gemini import FakeGemini
from agentci.testing.repo import commit_repo

pytestmark = pytest.mark.skipif(not Path("/usr/bin/bwrap").exists(), reason="needs bubblewrap")

MAKE = 'open(b"caf\\xe9.txt", "wb").write(b"x\\n")\n'
SCRIPT = [
    {
        "function_calls": [
            {"name": "write_file", "args": {"file_path": "src/make.py", "content": MAKE}}
        ]
    },
    {"function_calls": [{"name": "run_shell_command", "args": {"command": "python3 src/make.py"}}]},
    {"text": "Done."},
    {"text": "Done, within src/."},
]
RECIPE = {
    "version": 1, "name": "guarded", "model": {"name": "gemini-2.5-flash"}, "prompt": "Work.",
    "policy": {"rules": [{"tool": "run_shell_command", "command": "python3 src/make.py",
                          "decision": "allow"}]},
    "guards": {"allowed_paths": ["src/**"]},
}  # fmt: skip


def test_a_latin1_name_outside_allowed_paths_is_reverted_and_named_to_the_model(tmp_path: Path):
    repo = tmp_path / "repo"
    commit_repo(repo, {"src/a.py": "x = 1\n"})
    (tmp_path / "recipe.yaml").write_text(yaml.safe_dump(RECIPE))
    with FakeGemini(scripts={"gemini-2.5-flash": SCRIPT}) as fake:
        run = run_recipe(tmp_path / "recipe.yaml", tmp_path / "out", cwd=repo,
                         env={**fake.env(), "CI": "", "GITHUB_ACTIONS": ""})  # fmt: skip
        follow_up = fake.generate_requests[3].contents[-1]
    assert (run.code, run.result["status"]) == (0, "success"), run.stderr[-2000:]
    events = jsonl_lines(tmp_path / "out" / "events.jsonl")  # the name as a JSON escape
    warnings = [e for e in events if e["type"] == "warning"]
    assert [e["kind"] for e in warnings] == ["guard_reverted"]
    reverted, copies = warnings[0]["message"].split(" (as they were before the revert: ")
    assert reverted.rsplit(": ", 1)[1] == "caf\udce9.txt"
    assert copies.startswith(".agentci/reverted/")  # a copy first (isolation: none)
    text = follow_up["parts"][0]["text"]
    assert "agentci has reverted your changes to: caf\ufffd.txt." in text
    assert not (repo / "caf\udce9.txt").exists()
    assert run.result["tasks"][0]["changed_files"] == ["src/make.py"]
