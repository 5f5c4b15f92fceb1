"""Usage: the one type agentci counts tokens, cost and model calls with.

The unit of accounting is **one model call**: one request sent to the model's API. A call
that was retried counts once per attempt, and what the API reported for each attempt
(``usageMetadata``; for a cut stream, the last report before the cut) is added, because each
attempt may be billed. The same type holds one provider report, one call, a task's totals
and a run's totals; they are summed with ``+``:

    task = Usage()
    task += Usage(prompt_tokens=120, output_tokens=30).as_call(cost_usd=0.0001)

``cost_usd`` is ``None`` while nothing priced was added (a model without a known price);
``None`` plus a cost is that cost. ``estimated_calls`` counts the calls whose tokens agentci
estimated because the server reported none (some OpenAI-compatible servers): their token
counts (and so their cost) are agentci's estimate, not the server's word.

An explicit context cache (``model.cache: explicit``, Gemini) adds two counts, both billed in
``cost_usd``: ``cache_write_tokens``, the tokens written into a cache when it was created (at
the input price), and ``cache_storage_token_hours``, tokens × hours the cache was stored (at
the storage price). The provider adds them to the report of the next call it makes.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator


class Usage(BaseModel):
    """Token and cost counts of one or more model calls (summed with ``+``)."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    output_tokens: int = 0
    thoughts_tokens: int = 0
    cached_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float | None = None
    model_calls: int = 0
    estimated_calls: int = 0
    cache_write_tokens: int = 0
    cache_storage_token_hours: float = 0.0

    @model_validator(mode="after")
    def _total(self) -> Usage:
        """A report without ``total_tokens`` counts prompt + output + thinking (cached tokens
        are part of the prompt)."""
        if not self.total_tokens:
            self.total_tokens = self.prompt_tokens + self.output_tokens + self.thoughts_tokens
        return self

    def as_call(self, cost_usd: float | None) -> Usage:
        """This report as one counted model call costing ``cost_usd``."""
        return self.model_copy(update={"cost_usd": cost_usd, "model_calls": 1})

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        if self.cost_usd is None and other.cost_usd is None:
            cost = None
        else:
            cost = round((self.cost_usd or 0.0) + (other.cost_usd or 0.0), 8)
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            thoughts_tokens=self.thoughts_tokens + other.thoughts_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cost_usd=cost,
            model_calls=self.model_calls + other.model_calls,
            estimated_calls=self.estimated_calls + other.estimated_calls,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cache_storage_token_hours=round(
                self.cache_storage_token_hours + other.cache_storage_token_hours, 6
            ),
        )


def cache_hit_rate(usage: Usage) -> float | None:
    """The share of prompt tokens the provider served from its prompt cache (cached / prompt
    tokens, rounded to 4 places); ``None`` before any prompt token was counted."""
    if usage.prompt_tokens <= 0:
        return None
    return round(min(usage.cached_tokens, usage.prompt_tokens) / usage.prompt_tokens, 4)


def usage_dict(usage: Usage) -> dict[str, object]:
    """``usage`` as result.json writes it: the counts plus ``cache_hit_rate``."""
    return {**usage.model_dump(), "cache_hit_rate": cache_hit_rate(usage)}


class ReportedUsage(Usage):
    """A ``usage`` object of result.json read back (``cache_hit_rate`` is derived, not summed)."""

    cache_hit_rate: float | None = None


def total(usages: list[Usage]) -> Usage:
    """The sum of ``usages`` (an empty list sums to ``Usage()``)."""
    out = Usage()
    for u in usages:
        out += u
    return out
