"""`python -m agentci` is the `agentci` command."""

from agentci.cli import main

if __name__ == "__main__":
    main()
