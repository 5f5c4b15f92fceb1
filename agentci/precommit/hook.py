"""``agentci pre-commit``: run a recipe on the files being committed, as a fixer hook.

pre-commit calls the hook with the staged files as arguments (``pass_filenames``). Each one
becomes an item of the recipe's ``list`` parameter (``files`` unless ``--files-param`` names
another), the agent may change those files only (``guards.allowed_paths``, see
:mod:`agentci.precommit.scope`), in place, in the repository pre-commit runs in.

Exit codes in this mode (docs/pre-commit.md):

===  ==========================================================================================
0    nothing to fix: no files, or the recipe's verify already passes on them (no model call)
1    agentci changed files (re-stage them and commit again, as after a formatter), or it could
     not fix them (verify still fails, no change)
2    invalid input: no such recipe, no ``list`` parameter, a missing API key, …
3+   as ``agentci run``: budget exhausted (3), loop detected (4), blocked (5), provider error
     (6), internal error (70), provider unavailable (75), cancelled (130/143)
===  ==========================================================================================

A run never waits for input and never outlives its wall clock: without a
``budget.max_wall_seconds`` in the recipe, ``--timeout`` (default 300 s) caps it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from agentci import jsontext, workspace_io
from agentci.errors import InvalidInput
from agentci.events.sinks import tell
from agentci.precommit.names import as_argument, normalise
from agentci.precommit.scope import limit_to_files
from agentci.providers.registry import has_credentials
from agentci.recipe.load import load_recipe
from agentci.run.launch import LaunchOptions, launch

#: The exit code when the agent changed files: the commit must be made again.
EXIT_FIXED = 1
#: The wall clock of a run whose recipe sets none, in seconds.
DEFAULT_TIMEOUT = 300.0
#: Recipes that come with agentci, by name (``--recipe fix-lint``).
BUILTIN = ("fix-lint",)


@dataclass
class HookOptions:
    """What ``agentci pre-commit`` was asked to do."""

    recipe: str  # a file, or the name of a built-in recipe
    files: list[str]
    files_param: str = "files"
    params: list[str] = field(default_factory=list)
    out_dir: Path = Path(".agentci/pre-commit-out")
    timeout: float | None = None
    max_cost: float | None = None
    verbose: bool = False
    quiet: bool = False


def recipe_path(name: str) -> Path:
    """The recipe file ``name`` names.

    A built-in recipe's name (``fix-lint``) always means the recipe that comes with agentci,
    even when the repository holds a file of that name: that file is the repository's, and a
    pull request could put its own recipe there (whose ``setup`` runs before any sandbox). A
    repository file is named as a path: ``./fix-lint``, ``ci/fix-lint.yaml``."""
    if name not in BUILTIN:
        return Path(name)
    return Path(str(resources.files("agentci.precommit") / "recipes" / f"{name}.yaml"))


def check_hook_recipe(path: Path, files_param: str) -> dict[str, float]:
    """Refuse a recipe the hook cannot run; return the budget overrides the hook needs.

    The recipe needs a ``list`` parameter named ``files_param`` and must edit the checkout in
    place (``workspace.isolation: none``)."""
    recipe = load_recipe(path)
    spec = recipe.parameters.get(files_param)
    if spec is None or spec.type != "list":
        raise InvalidInput(
            f"{path}: a pre-commit recipe needs a list parameter for the files, e.g. "
            f"parameters: {{{files_param}: {{type: list}}}} (or name yours with --files-param)"
        )
    if recipe.workspace.isolation != "none":
        raise InvalidInput(
            f"{path}: workspace.isolation is {recipe.workspace.isolation!r}; a pre-commit hook "
            "fixes the files in place, so it needs isolation: none"
        )
    if recipe.budget.max_wall_seconds is None:
        return {"max_wall_seconds": DEFAULT_TIMEOUT}
    return {}


def run_hook(opts: HookOptions) -> int:
    """Run the recipe on ``opts.files``; the exit code of the module docstring."""
    files = normalise(opts.files)
    if not files:
        return 0
    path = recipe_path(opts.recipe)
    try:
        overrides = check_hook_recipe(path, opts.files_param)
    except InvalidInput as err:
        tell(f"agentci: error: {err}")
        return 2
    if opts.timeout is not None:
        overrides["max_wall_seconds"] = opts.timeout
    if opts.max_cost is not None:
        overrides["max_cost_usd"] = opts.max_cost

    code = launch(
        LaunchOptions(
            recipe=path,
            params=[*opts.params, *(f"{opts.files_param}={as_argument(f)}" for f in files)],
            out_dir=opts.out_dir,
            workspace=Path("."),
            budget_overrides=overrides,
            verbose=opts.verbose,
            quiet=opts.quiet,
            limit_plans=lambda plans: limit_to_files(plans, files),
            key_when_needed=True,
            optional=frozenset(),  # a hook's outputs are read by the hook: no page, no SARIF
        )
    )
    if code == 2 and _needs_a_key(path):
        tell(
            "agentci: this hook needs the model, and no API key is set: set GEMINI_API_KEY, or "
            f"skip the hook for this commit with SKIP={hook_id(opts.recipe)} git commit …"
        )
    if code != 0:
        return code
    changed = _changed_files(opts.out_dir)
    if changed:
        tell(
            f"agentci: changed {len(changed)} file(s): {' '.join(changed)}; review the change "
            f"(patch: {opts.out_dir / 'patch.diff'}), git add the files and commit again"
        )
        return EXIT_FIXED
    return 0


def hook_id(recipe: str) -> str:
    """The id of the hook in .pre-commit-hooks.yaml that runs ``recipe``."""
    return f"agentci-{recipe}" if recipe in BUILTIN else "agentci"


def _needs_a_key(path: Path) -> bool:
    """Whether the recipe's model is a live one and no key is set (the run failed for it)."""
    try:
        return not has_credentials(load_recipe(path).model, os.environ)
    except InvalidInput:  # a model no provider serves: its own message said so
        return False


def _changed_files(out_dir: Path) -> list[str]:
    """result.json's changed files, read as data through :mod:`agentci.workspace_io` (the
    output folder is in the checkout: no link followed, no FIFO waited on)."""
    try:
        data = workspace_io.read_bytes(out_dir, "result.json", 64 << 20)
        result = jsontext.loads(data)
    except (OSError, jsontext.NotJson, workspace_io.UnsafePath):
        return []
    if not isinstance(result, dict) or not isinstance(result.get("changed_files"), list):
        return []
    return [str(f) for f in result.get("changed_files", [])]
