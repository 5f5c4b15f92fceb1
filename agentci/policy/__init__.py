"""The approval policy (rules, shell parsing, protected paths), the sandbox and the child
environment. See docs/policy.md for what is a boundary and what is only consent."""
