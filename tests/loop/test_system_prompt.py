"""The system instruction a task sends: agentci's own (tools from the registry, what agentci
checks after the model stops), or the recipe's replacement, or agentci's plus an append."""

from __future__ import annotations

from pathlib import Path

from tool_harness import init_repo

from agentci.testing.cli import run_recipe
from agentci.testing.fake_gemini import FakeGemini
from agentci.tools.registry import default_tools

RECIPE = """\
version: 1
name: sys
model:
  name: gemini-2.5-flash
  retry: {{attempts: 1}}
prompt: Look around.
instructions: Recipe instruction here.
sandbox: none
allow_no_changes: true
workspace: {{path: ws}}
{extra}
"""


def _body(tmp_path: Path, extra: str = "") -> dict:
    init_repo(tmp_path / "ws", {"README.md": "hello\n"})
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.format(extra=extra))
    with FakeGemini([{"text": "Done."}]) as fake:
        run = run_recipe(recipe, tmp_path / "out", cwd=tmp_path, env=fake.env())
        body = fake.generate_requests[0].body
    assert run.code == 0, run.stderr
    return body


def _system(tmp_path: Path, extra: str = "") -> str:
    return _body(tmp_path, extra)["systemInstruction"]["parts"][0]["text"]


def test_agentcis_prompt_names_every_tool_of_the_registry_by_kind_and_the_mode(tmp_path: Path):
    system = _system(tmp_path, "policy: {mode: read_only}")
    assert (
        "Your tools, by kind (their declarations say what each does):\n"
        "- look around (calls of one turn run in parallel): read_file, list_directory, glob, "
        "grep_search\n"
        "- change files: write_file, replace\n"
        "- run a command: run_shell_command\n"
    ) in system
    named = {name for line in system.splitlines() if line.startswith("- ")
             for name in line.split(": ", 1)[1].split(", ")}  # fmt: skip
    assert set(default_tools()) <= named
    assert "approval policy (mode `read_only`)" in system
    assert "submit_result" not in system
    assert system.rstrip().endswith("Instructions from the recipe:\nRecipe instruction here.")


def test_agentcis_prompt_does_not_repeat_what_the_tool_declarations_say(tmp_path: Path):
    """Each request declares every tool with its description: the system instruction, sent
    with every request too, does not copy any part of a description."""
    body = _body(tmp_path)
    system = body["systemInstruction"]["parts"][0]["text"]
    (tools,) = body["tools"]
    for decl in tools["functionDeclarations"]:
        first = decl["description"].split(". ")[0]
        assert first not in system, decl["name"]


def test_agentcis_prompt_says_what_is_checked_after_the_model_stops(tmp_path: Path):
    extra = (
        "verify: {command: python -m unittest -q, attempts: 2, baseline: false}\n"
        "guards: {allowed_paths: ['src/**'], max_changed_files: 3, forbid_test_edits: ['tests/**']}"
    )
    system = _system(tmp_path, extra)
    assert (
        "When you stop, agentci checks your work:\n"
        "- it runs the verify command `python -m unittest -q` (up to 2 rounds: its failures "
        "come back to you).\n"
        "- only files matching src/** may change.\n"
        "- files matching tests/** may not be modified.\n"
        "- at most 3 files may change.\n"
        "Check your work the same way before you stop."
    ) in system


def test_system_prompt_replace_sends_the_recipes_text_instead(tmp_path: Path):
    system = _system(tmp_path, "system_prompt: {replace: 'You review code. Be terse.'}")
    assert system == (
        "You review code. Be terse.\n\nInstructions from the recipe:\nRecipe instruction here.\n"
    )


def test_system_prompt_replace_reads_a_file_next_to_the_recipe(tmp_path: Path):
    (tmp_path / "SYSTEM.md").write_text("# Reviewer\nOnly read, never write.\n")
    system = _system(tmp_path, "system_prompt: {replace: SYSTEM.md}")
    assert system.startswith("# Reviewer\nOnly read, never write.\n\nInstructions from the recipe:")


def test_system_prompt_append_keeps_agentcis_prompt_and_adds_the_text_last(tmp_path: Path):
    system = _system(tmp_path, "system_prompt: {append: 'Answer in French.'}")
    assert system.startswith("You are a coding agent run by agentci")
    assert system.endswith(
        "Instructions from the recipe:\nRecipe instruction here.\n\nAnswer in French.\n"
    )


def test_a_missing_system_prompt_file_is_invalid_input_with_its_line(tmp_path: Path):
    from agentci.testing.cli import agentci

    init_repo(tmp_path / "ws", {"README.md": "hello\n"})
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.format(extra="system_prompt: {replace: prompts/missing.md}"))
    done = agentci("validate", str(recipe), cwd=tmp_path)
    assert done.returncode == 2
    assert f"r.yaml:11: system_prompt.replace: no such file: {tmp_path}/prompts/missing.md" in (
        done.stdout + done.stderr
    )


def test_a_system_prompt_file_that_is_a_link_is_refused_not_followed(tmp_path: Path):
    from agentci.testing.cli import agentci

    init_repo(tmp_path / "ws", {"README.md": "hello\n"})
    (tmp_path / "host-secret.txt").write_text("host secret\n")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "system.md").symlink_to(tmp_path / "host-secret.txt")
    recipe = tmp_path / "r.yaml"
    recipe.write_text(RECIPE.format(extra="system_prompt: {replace: prompts/system.md}"))
    done = agentci("validate", str(recipe), cwd=tmp_path)
    assert done.returncode == 2
    assert (
        f"r.yaml:11: system_prompt.replace: cannot read {tmp_path}/prompts/system.md: "
        "a symbolic link (or a path through one), not followed"
    ) in (done.stdout + done.stderr)
