"""``agentci run --resume OUT``: a stopped task goes on from its last complete turn.

Through the real command: the offline demo stopped by a budget and resumed ends as an
uninterrupted run does, byte for byte; the real google-genai SDK sends the earlier conversation
first; what would make the history wrong is refused with exit 2, unless ``--resume-force``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from e2e_scenario import assert_agree, make_case, shell_call, write_call

from agentci.events import types as ev
from agentci.testing.cli import Run, run_recipe
from agentci.testing.repo import GIT_AUTHOR

ROOT = Path(__file__).parents[2]
DEMO = ROOT / "examples" / "fix-failing-test"


def history(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Run:
    out = tmp_path_factory.mktemp("whole") / "out"
    return run_recipe(DEMO / "recipe.yaml", out, cwd=ROOT)


@pytest.mark.timeout(300)  # three runs of the demo, each with its verify
def test_the_demo_stopped_by_max_turns_and_resumed_ends_as_an_uninterrupted_run(
    uninterrupted: Run, tmp_path: Path
):
    turns = 4  # after the fix: the resumed run starts from a workspace with the earlier patch
    stopped = run_recipe(DEMO / "recipe.yaml", tmp_path / "first", "--max-turns", str(turns),
                         cwd=ROOT)  # fmt: skip
    assert_agree(stopped, "budget_exhausted", 3)
    lines = history(stopped.out)
    assert [m["role"] for m in lines] == ["user"] + ["model", "user"] * turns
    assert stopped.result["tasks"][0]["resume"]["fingerprint"]["model"] == "replay:cassette.jsonl"

    resumed = run_recipe(DEMO / "recipe.yaml", tmp_path / "second", "--resume",
                         str(stopped.out), cwd=ROOT)  # fmt: skip

    assert_agree(resumed, "success", 0)
    assert (resumed.out / "patch.diff").read_bytes() == (
        uninterrupted.out / "patch.diff"
    ).read_bytes()
    assert resumed.events[0].resumed_from == str(stopped.out)
    assert resumed.result["resumed_from"] == str(stopped.out)
    whole = uninterrupted.result["turns"]
    resume = resumed.result["tasks"][0]["resume"]
    assert (resume["previous"]["turns"], resume["this_run"]["turns"]) == (turns, whole - turns)
    assert resume["all_runs"]["turns"] == resumed.result["all_runs"]["turns"] == whole
    assert resumed.result["turns"] == whole - turns
    assert (
        resumed.result["all_runs"]["usage"]["total_tokens"]
        == uninterrupted.result["usage"]["total_tokens"]
    )
    assert history(resumed.out)[: len(lines)] == lines  # the same conversation, continued
    assert len(history(resumed.out)) == len(history(uninterrupted.out))


def test_the_resumed_gemini_request_carries_the_earlier_conversation(tmp_path: Path):
    from agentci.testing.fake_gemini import FakeGemini

    first_turn = {
        "text": "Writing the note.",
        "function_calls": [{"name": "write_file", "args": {"file_path": "NOTE.md",
                            "content": "note\n"}, "thought_signature": "c2lnLTE="}],
    }  # fmt: skip
    case = make_case(tmp_path, None, {"model": {"name": "gemini-2.5-flash"},
                                      "workspace": {"path": ".", "isolation": "worktree"}})  # fmt: skip
    with FakeGemini([first_turn, {"text": "All done."}]) as fake:
        stopped = case.run("--max-turns", "1", env=fake.env())
        assert_agree(stopped, "budget_exhausted", 3)
        resumed = run_recipe(case.recipe, tmp_path / "again", "--resume", str(case.out),
                             cwd=case.repo, env=fake.env())  # fmt: skip
        requests = fake.generate_requests
    assert_agree(resumed, "success", 0)
    assert len(requests) == 2
    contents = requests[1].body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[0]["parts"][-1]["text"] == "Do the work."
    call = contents[1]["parts"][-1]
    assert call["functionCall"]["name"] == "write_file"
    assert call["thoughtSignature"] == "c2lnLTE="
    assert contents[2]["parts"][0]["functionResponse"]["name"] == "write_file"
    assert "+note" in resumed.patch


def test_history_jsonl_never_holds_a_secret(tmp_path: Path):
    secret = "s3cr3t-value-of-the-deploy-token-1234"
    script = [shell_call("echo $HOME"), {"text": f"The token is {secret}."}]
    case = make_case(tmp_path, script, {"budget": {"max_turns": 5}})
    run = case.run(env={"DEPLOY_TOKEN": secret})
    text = (run.out / "history.jsonl").read_text()
    assert secret not in text
    assert history(run.out)[-1]["parts"][0]["text"] == "The token is ***."


def _commit_all(repo: Path, message: str) -> None:
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=repo, check=True, env=GIT_AUTHOR)


def test_an_in_place_workspace_with_uncommitted_changes_is_refused_and_left_alone(tmp_path):
    script = [write_call("a.txt", "a\n"), write_call("b.txt", "b\n"), {"text": "done"}]
    case = make_case(tmp_path, script, {})
    stopped = case.run("--max-turns", "1")
    assert_agree(stopped, "budget_exhausted", 3)
    before = sorted(p.name for p in case.out.iterdir())

    refused = case.run("--resume", str(case.out))

    assert refused.code == 2
    assert "uncommitted changes (a.txt)" in refused.stderr
    assert "git stash -u" in refused.stderr
    assert sorted(p.name for p in case.out.iterdir()) == before  # outputs untouched
    assert not case.out.with_name("out.prev").exists()
    assert (case.repo / "a.txt").read_text() == "a\n"  # the workspace too

    subprocess.run(["git", "stash", "-u", "-q"], cwd=case.repo, check=True, env=GIT_AUTHOR)
    resumed = case.run("--resume", str(case.out))
    assert_agree(resumed, "success", 0)
    assert resumed.result["resumed_from"] == str(case.out.with_name("out.prev"))  # moved aside
    assert resumed.result["changed_files"] == ["a.txt", "b.txt"]


def test_an_in_place_workspace_at_another_commit_is_refused(tmp_path: Path):
    script = [write_call("a.txt", "a\n"), {"text": "done"}]
    case = make_case(tmp_path, script, {"budget": {"max_turns": 5}})
    case.run("--max-turns", "1")
    (case.repo / "a.txt").unlink()
    (case.repo / "other.txt").write_text("moved on\n")
    _commit_all(case.repo, "moved on")

    refused = case.run("--resume", str(case.out))

    assert refused.code == 2
    assert "started from commit" in refused.stderr and "git checkout" in refused.stderr


def _worktree_case(tmp_path: Path, script: list) -> object:
    return make_case(tmp_path, script, {"workspace": {"path": ".", "isolation": "worktree"},
                                        "policy": {"mode": "yolo"}})  # fmt: skip


def test_another_model_is_refused_with_exit_2_unless_forced(tmp_path: Path):
    script = [write_call("a.txt", "a\n"), write_call("b.txt", "b\n"), {"text": "done"}]
    case = _worktree_case(tmp_path, script)
    case.run("--max-turns", "1")
    shutil.copy(tmp_path / "script.yaml", tmp_path / "other.yaml")
    case.recipe.write_text(case.recipe.read_text().replace("script.yaml", "other.yaml"))

    refused = run_recipe(case.recipe, tmp_path / "r2", "--resume", str(case.out), cwd=case.repo)
    assert_agree(refused, "invalid_input", 2)
    assert (
        "the model (scripted:script.yaml → scripted:other.yaml) changed" in refused.result["reason"]
    )
    assert "--resume-force" in refused.result["reason"]
    assert "+a" in refused.patch  # the earlier patch and history stay, to be resumed later
    assert history(refused.out) == history(case.out)

    forced = run_recipe(case.recipe, tmp_path / "r3", "--resume", str(refused.out),
                        "--resume-force", cwd=case.repo)  # fmt: skip
    assert_agree(forced, "success", 0)
    warnings = [e for e in forced.events if isinstance(e, ev.WarningEvent)]
    assert [w.kind for w in warnings] == ["resume_changed", "resume_changed"]
    assert warnings[0].message.startswith("--resume-force: cannot resume task 'case'")
    assert warnings[1].message == "--resume: the recipe file changed since the earlier run"
    assert forced.result["changed_files"] == ["a.txt", "b.txt"]


def test_other_workspace_files_before_the_agent_are_refused(tmp_path: Path):
    script = [write_call("a.txt", "a\n"), {"text": "done"}]
    case = _worktree_case(tmp_path, script)
    case.run("--max-turns", "1")
    (case.repo / "README.md").write_text("# changed since\n")
    _commit_all(case.repo, "changed")

    refused = run_recipe(case.recipe, tmp_path / "r2", "--resume", str(case.out), cwd=case.repo)

    assert_agree(refused, "invalid_input", 2)
    assert "the workspace files before the agent (the base) changed" in refused.result["reason"]


def test_a_half_turn_is_dropped_and_asked_again(tmp_path: Path):
    slow = shell_call("test -f started || { touch started; sleep 60; }")
    case = _worktree_case(tmp_path, [slow, {"text": "done"}])
    stopped = case.run("--timeout", "3")
    assert_agree(stopped, "budget_exhausted", 3)
    assert history(stopped.out)[-1]["role"] == "model"  # its call's result never came

    resumed = run_recipe(case.recipe, tmp_path / "r2", "--resume", str(case.out), cwd=case.repo)

    assert_agree(resumed, "success", 0)
    resume = resumed.result["tasks"][0]["resume"]
    assert (resume["dropped_messages"], resume["continued"]) == (1, True)
    shells = [e for e in resumed.events if isinstance(e, ev.ToolCallResponse)]
    assert [e.exit_code for e in shells] == [0]  # asked again; `started` came with the patch
    assert resumed.result["changed_files"] == ["started"]


def test_a_finished_task_is_kept_and_a_stopped_one_continued(tmp_path: Path):
    tasks = [
        {"name": "quick", "prompt": "Quick.", "model": {"name": "scripted:quick.yaml"}},
        {"name": "long", "prompt": "Long.", "model": {"name": "scripted:long.yaml"}},
    ]
    scripts = {
        "quick.yaml": [write_call("q.txt", "q\n"), {"text": "quick done"}],
        "long.yaml": [write_call("l1.txt", "1\n"), write_call("l2.txt", "2\n"),
                      write_call("l3.txt", "3\n"), {"text": "long done"}],
    }  # fmt: skip
    case = make_case(tmp_path, None, {"workspace": {"path": ".", "isolation": "worktree"},
                                      "model": {"name": "scripted:quick.yaml"},
                                      "budget": {"max_turns": 2}, "tasks": tasks})  # fmt: skip
    for name, replies in scripts.items():
        (tmp_path / name).write_text(json.dumps(replies))
    first = case.run()
    assert [t["status"] for t in first.result["tasks"]] == ["success", "budget_exhausted"]
    (tmp_path / "quick.yaml").write_text("[]")  # a kept task is never run again

    resumed = run_recipe(case.recipe, tmp_path / "r2", "--resume", str(case.out), "--max-turns",
                         "5", cwd=case.repo)  # fmt: skip

    assert_agree(resumed, "success", 0)
    quick, long = resumed.result["tasks"]
    assert (quick["status"], quick["resume"]["kept"], quick["turns"]) == ("success", True, 0)
    assert quick["resume"]["all_runs"]["turns"] == 2
    assert (long["resume"]["previous"]["turns"], long["turns"]) == (2, 2)
    assert resumed.result["all_runs"]["turns"] == 6
    for name in ("quick", "long"):
        kept = (case.out / "tasks" / name / "patch.diff").read_text()
        now = (resumed.out / "tasks" / name / "patch.diff").read_text()
        assert now.startswith(kept) if name == "long" else now == kept
    assert "l3.txt" in (resumed.out / "tasks" / "long" / "patch.diff").read_text()


def test_a_folder_that_holds_no_run_is_refused_before_anything_runs(tmp_path: Path):
    case = make_case(tmp_path, [{"text": "done"}], {})
    (tmp_path / "empty").mkdir()
    refused = case.run("--resume", str(tmp_path / "empty"))
    assert refused.code == 2
    assert "no result.json: not the output folder of an agentci run" in refused.stderr
    assert not case.out.exists()


def test_a_history_that_is_a_link_is_refused(tmp_path: Path):
    case = make_case(tmp_path, [write_call("a.txt", "a\n"), {"text": "done"}], {})
    case.run("--max-turns", "1")
    subprocess.run(["git", "stash", "-u", "-q"], cwd=case.repo, check=True, env=GIT_AUTHOR)
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text((case.out / "history.jsonl").read_text())
    (case.out / "history.jsonl").unlink()
    (case.out / "history.jsonl").symlink_to(elsewhere)
    refused = case.run("--resume", str(case.out))
    assert refused.code == 2
    assert "history.jsonl" in refused.stderr
