"""``bench/bench_cache.py`` with tiny sizes: both sessions run to their last turn against the
fake server, the explicit one makes and deletes its caches, and the figures add up (a smoke
run: no figure is judged against a target)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bench_cache  # noqa: E402


def test_a_tiny_run_measures_both_modes_and_leaves_no_cache() -> None:
    args = bench_cache.parse(["--turns", "4", "--output-chars", "400"])
    figures = asyncio.run(bench_cache.run(args))
    implicit, implicit_usage, implicit_cost = figures["rows"]["implicit (guaranteed)"]
    explicit, explicit_usage, explicit_cost = figures["rows"]["explicit"]
    assert implicit.requests == explicit.requests == 4
    assert implicit_usage.cached_tokens == 0
    assert (explicit.caches_created, explicit.caches_left) == (1, 0)
    assert explicit.cache_requests == 3  # every call after the first
    assert explicit_usage.cached_tokens > 0
    assert explicit_usage.cache_write_tokens > 0
    assert explicit_cost > 0 and implicit_cost > 0
    assert figures["explicit_projected"] >= explicit_cost
