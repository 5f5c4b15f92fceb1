"""Delivering a run's change from the GitHub Action: a branch and pull request, a sticky comment.

Run by action.yml after agentci (``python -m agentci.delivery``), outside the agent's run: the
token it uses is never in agentci's environment. See docs/github-action.md.
"""
