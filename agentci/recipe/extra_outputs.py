"""The optional outputs a recipe's ``outputs.extra`` (and ``--outputs``) can name, importable
without the recipe models (the command-line options check ``--outputs`` against them)."""

from __future__ import annotations

from typing import Literal

ExtraOutput = Literal["report.html", "sarif.json"]
EXTRA_OUTPUTS: tuple[ExtraOutput, ...] = ("report.html", "sarif.json")
