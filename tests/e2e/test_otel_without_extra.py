"""Tracing asked for where the otel extra is not installed.

The real ``agentci`` in a subprocess whose Python cannot import opentelemetry (a
``sitecustomize`` on ``PYTHONPATH`` refuses the import, as a Python without the extra would):
``--otel`` is refused like a bad flag (exit 2, the install line, the outputs of a refused run);
``OTEL_EXPORTER_OTLP_ENDPOINT`` alone is the environment's setting, so the run goes on without
spans and says so once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_scenario import make_case

from agentci.testing.case import Case
from agentci.testing.cli import agentci

INSTALL = "pip install 'agentci-runner[otel]'"
BLOCK = """\
import sys

class _NoOpenTelemetry:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NoOpenTelemetry())
"""


@pytest.fixture
def without_otel(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCK)
    return {"PYTHONPATH": str(site), "OTEL_EXPORTER_OTLP_ENDPOINT": ""}


def _case(root: Path) -> Case:
    return make_case(root, [{"text": "Nothing to do."}], {"allow_no_changes": True})


def test_otel_flag_without_the_extra_is_refused_with_the_install_line(
    tmp_path: Path, without_otel: dict[str, str]
):
    case = _case(tmp_path)
    run = case.run("--otel", env=without_otel)
    assert run.code == 2, run.stderr
    assert run.stderr.splitlines()[0] == (
        f"agentci: error: OpenTelemetry export needs the otel extra: {INSTALL} "
        "(No module named 'opentelemetry')"
    )
    assert "Traceback" not in run.stderr
    assert (run.result["status"], run.result["usage"]["model_calls"]) == ("invalid_input", 0)


def test_batch_otel_flag_without_the_extra_is_refused_before_any_task(
    tmp_path: Path, without_otel: dict[str, str]
):
    case = _case(tmp_path)
    done = agentci("batch", str(case.recipe), "--out", str(case.out), "--otel",
                   cwd=case.repo, env=without_otel)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert INSTALL in done.stderr and "Traceback" not in done.stderr
    assert not (case.out / "result.json").exists()  # no task started


def test_the_endpoint_variable_without_the_extra_is_a_warning_and_the_run_goes_on(
    tmp_path: Path, without_otel: dict[str, str]
):
    case = _case(tmp_path)
    run = case.run(env={**without_otel, "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert run.code == 0, run.stderr
    assert run.result["status"] == "no_changes"
    warnings = [line for line in run.stderr.splitlines() if "OpenTelemetry" in line]
    assert warnings == [
        "agentci: warning: OTEL_EXPORTER_OTLP_ENDPOINT is set but OpenTelemetry is not "
        f"installed: this run exports no spans ({INSTALL})"
    ]
