"""Field types every part of the recipe schema shares: strict models, durations, amounts."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

MAX_SECONDS = 10_000_000  # ~115 days: any longer wait is a typo, and stays finite arithmetic
MAX_USD = 1_000_000

#: A duration in seconds: positive, finite, at most MAX_SECONDS.
Seconds = Annotated[float, Field(gt=0, le=MAX_SECONDS)]
#: An amount of US dollars: positive, finite, at most MAX_USD.
Usd = Annotated[float, Field(gt=0, le=MAX_USD)]
#: A price in USD per million tokens.
Price = Annotated[float, Field(ge=0, le=MAX_USD)]


class Strict(BaseModel):
    """A recipe section: unknown keys and NaN/infinite numbers are errors."""

    # defer_build: validators are built when a recipe is first validated, not at import
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, defer_build=True)
