"""docs/outputs.md's OpenTelemetry examples, run the way a user would.

The GitHub Actions steps run in the workflow harness (the hosted runner's bash, ``GITHUB_ENV``
carried between steps, ``vars`` and ``secrets``), ``agentci run --otel`` against a scripted
recipe, with a local OTLP/HTTP receiver on 127.0.0.1 standing in for the backend the
repository variable names. The Collector configuration is parsed and its pipeline checked
against what it defines and what agentci sends.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from action_harness import ROOT
from otel_spans import OtlpReceiver
from test_action import _bin_dir
from test_action_workflows import PROJECT, RECIPES
from workflow_harness import GitHub

pytest.importorskip(
    "opentelemetry.sdk", reason="the otel extra (agentci-runner[otel]) is not installed"
)

DOC = ROOT / "docs" / "outputs.md"


def _yaml_block(heading: str) -> object:
    """The first yaml block under ``heading`` in docs/outputs.md, parsed."""
    text = DOC.read_text()
    section = text[text.index(heading) :]
    block = section[section.index("```yaml\n") + 8 :]
    return yaml.safe_load(block[: block.index("```")])


@pytest.fixture
def bin_dir() -> Iterator[Path]:
    with _bin_dir() as path:
        yield path


def test_the_actions_steps_send_the_run_as_a_child_of_the_workflow_runs_trace(
    tmp_path: Path, bin_dir: Path
):
    steps = _yaml_block("### Sending the spans from a GitHub Actions job")
    assert isinstance(steps, list)
    github = GitHub(tmp_path, bin_dir, {**PROJECT, **RECIPES})
    flow = {"name": "agentci", "jobs": {"fix": {"steps": steps}}}
    with OtlpReceiver() as backend:
        github.vars = {"OTEL_EXPORTER_OTLP_ENDPOINT": backend.endpoint}
        job = github.run_job(flow, "fix")
        spans = list(backend.spans)
    assert not job.failed, job.log
    assert "agentci-runner[otel] @ git+https://github.com/OWNER/agentci@v0" in (
        github.pip_log.read_text()
    )
    (run,) = [s for s in spans if s["name"] == "agentci.run"]
    assert run["trace"] == f"{github.run_id:032x}"  # every job of the workflow run: one trace
    assert run["parent"] == f"{1:016x}"  # the run attempt
    assert run["attrs"]["agentci.status"] == "success"
    assert run["resource"]["service.name"] == "agentci"
    assert {s["trace"] for s in spans} == {run["trace"]}
    assert any(s["name"] == "execute_tool replace" for s in spans)


def test_the_collector_config_receives_otlp_http_and_exports_traces():
    config = _yaml_block("### An OpenTelemetry Collector in between")
    assert isinstance(config, dict)
    assert config["receivers"]["otlp"]["protocols"]["http"]["endpoint"] == "127.0.0.1:4318"
    traces = config["service"]["pipelines"]["traces"]
    for kind in ("receivers", "processors", "exporters"):
        assert traces[kind] and set(traces[kind]) <= set(config[kind]), kind
    assert traces["receivers"] == ["otlp"]  # what agentci's exporter speaks
    assert "OTEL_EXPORTER_OTLP_ENDPOINT` to\n`http://127.0.0.1:4318`" in DOC.read_text()
