"""report.html's template, compiled to Python once, when agentci is built, rather than in every run.

jinja2 turns a template into Python source before it can render it: for report.html.j2 that is
about 50 ms of CPU, spent at the end of every run that writes the page, after the model's last
answer. So the compiled modules are kept in ``templates/compiled/`` (``tmpl_<sha1 of the
name>.py``, as :meth:`jinja2.Environment.compile_templates` writes them and
:class:`jinja2.ModuleLoader` reads them) with ``stamp.json``: the jinja2 version that compiled
them and the SHA-256 of each source. ``python -m agentci.reference`` writes them, and a test fails
when they are stale.

A run loads the compiled modules only when the stamp matches the jinja2 it imports and the
sources beside them; otherwise it compiles the sources as before (the same page, 50 ms later).
They are part of agentci's installation, never read from a workspace.
"""

from __future__ import annotations

import functools
import hashlib
import json
import tempfile
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from agentci.usage import cache_hit_rate

TEMPLATES = Path(__file__).parent / "templates"
COMPILED = TEMPLATES / "compiled"
STAMP = "stamp.json"
PAGE = "report.html.j2"

#: The redaction applied to each printed value before it is escaped, when the run's secrets
#: hold a character escaping changes (set around a render by html_report; None: no pass).
VALUE_REDACT: ContextVar[Callable[[str], str] | None] = ContextVar("value_redact", default=None)


def _finalize(value: Any) -> Any:
    """jinja2's ``finalize``: each printed value, redacted before it is escaped when needed."""
    redact = VALUE_REDACT.get()
    if redact is None or not isinstance(value, str) or isinstance(value, Markup):
        return value  # Markup: built from redacted text (the final message)
    return redact(value)


def environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    """The page's environment: autoescaping on, every value through :func:`_finalize`."""
    env = jinja2.Environment(
        loader=loader,
        autoescape=True,
        finalize=_finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["hit_rate"] = cache_hit_rate
    return env


def source_hashes(folder: Path = TEMPLATES) -> dict[str, str]:
    """The SHA-256 of each template source in ``folder``, by name."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.j2"))}


def _stamp() -> dict[str, Any]:
    return {"jinja2": jinja2.__version__, "sources": source_hashes()}


def compiled_current(folder: Path = COMPILED) -> bool:
    """Whether the compiled modules in ``folder`` were made by this jinja2 from these sources."""
    try:
        stamp = json.loads((folder / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(stamp == _stamp())


@functools.lru_cache(maxsize=1)
def page_template() -> jinja2.Template:
    """The page template: the compiled modules when they are current, else the sources."""
    loader: jinja2.BaseLoader
    if compiled_current():
        loader = jinja2.ModuleLoader(str(COMPILED))
    else:
        loader = jinja2.FileSystemLoader(TEMPLATES)
    return environment(loader).get_template(PAGE)


def _source(name: str) -> bool:
    return "/" not in name and name.endswith(".j2")  # not the compiled folder below


def compiled_files() -> dict[str, str]:
    """What ``templates/compiled/`` should hold: file name → text (the modules and the stamp)."""
    env = environment(jinja2.FileSystemLoader(TEMPLATES))
    with tempfile.TemporaryDirectory(prefix="agentci-templates-") as tmp:
        env.compile_templates(tmp, zip=None, filter_func=_source, ignore_errors=False)
        files = {p.name: p.read_text(encoding="utf-8") for p in sorted(Path(tmp).iterdir())}
    files[STAMP] = json.dumps(_stamp(), indent=2, sort_keys=True) + "\n"
    return files
