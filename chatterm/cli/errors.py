"""What every command may end with: its exit code, and the error that ends it with one line and code 2."""

from __future__ import annotations

EXIT_OK, EXIT_PROVIDER, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad usage or an unreadable file: one line on stderr, exit code 2."""
