"""The recipe's ``budget`` section: limits per task, over the whole run (``total``) and per
day across the runs that share a ledger."""

from __future__ import annotations

from pydantic import Field, PositiveInt

from agentci.recipe.fields import Seconds, Strict, Usd


class TotalBudget(Strict):
    """Limits over all tasks of a recipe."""

    max_tokens: PositiveInt | None = None
    max_cost_usd: Usd | None = None
    max_wall_seconds: Seconds | None = None


class Budget(Strict):
    """Limits per task; ``total`` caps the sum over all tasks of a recipe."""

    max_turns: PositiveInt = 100
    max_tokens: PositiveInt | None = None
    max_cost_usd: Usd | None = None
    max_wall_seconds: Seconds | None = None
    max_tool_calls: PositiveInt | None = None
    tool_timeout_seconds: Seconds = 300
    total: TotalBudget | None = None
    daily_usd: Usd | None = Field(
        default=None,
        description="USD all runs sharing the ledger may spend per UTC day (docs/budgets.md).",
    )
    per_workflow_usd: Usd | None = Field(
        default=None,
        description="USD the runs of one workflow ($GITHUB_WORKFLOW, else the recipe's name) "
        "sharing the ledger may spend per UTC day.",
    )
    ledger: str | None = Field(
        default=None,
        description="The ledger file of daily_usd / per_workflow_usd (else $AGENTCI_LEDGER, "
        "else ~/.cache/agentci/ledger.sqlite); relative to the recipe's folder.",
    )
