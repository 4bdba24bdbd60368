"""Errors that a user can act on.

Every :class:`PairbenchError` message says *what* is wrong (which file, line, key
or model) and *what to do*. Workflow scripts print these without a traceback.
"""

import contextlib


class PairbenchError(Exception):
    """An error caused by input or configuration that the user can fix."""


class SuiteError(PairbenchError):
    """A malformed pair-suite file; ``lines`` holds one line per problem when there are several."""

    def __init__(self, message: str, lines: list[str] | None = None):
        super().__init__(message)
        self.lines = lines


class SourceError(PairbenchError):
    """A model or dataset that cannot be obtained from its configured source."""


class ConfigError(PairbenchError):
    """A configuration value that passes the schema but cannot work."""


class InputProblems(ConfigError):
    """Every problem one checking pass found in the config and its inputs, one line each (at most ``limit`` shown)."""

    def __init__(self, lines: list[str], limit: int = 20):
        self.lines = list(lines)
        shown = self.lines[:limit]
        more = len(self.lines) - len(shown)
        head = f"{len(self.lines)} problem(s) in the input; fix them all, then run again:"
        tail = [f"... and {more} more (only the first {limit} are shown)"] if more else []
        if len(self.lines) == 1:
            super().__init__(self.lines[0])
        else:
            super().__init__("\n".join([head, *(f"  {line}" for line in shown), *tail]))


class ProblemCollector:
    """Collect the problems of one checking pass instead of stopping at the first one.

    ``with collector.catching():`` records a :class:`PairbenchError` raised inside (each of its
    lines, or each line of an :class:`InputProblems`) and carries on; :meth:`raise_if_any` stops
    with all of them.
    """

    def __init__(self, limit: int = 20):
        self.limit = limit
        self.lines: list[str] = []

    def add(self, line: str) -> None:
        self.lines.append(line)

    def add_error(self, err: PairbenchError) -> None:
        """Its ``lines`` when it has them (one problem each), else its message."""
        self.lines.extend(getattr(err, "lines", None) or [str(err)])

    @contextlib.contextmanager
    def catching(self):
        try:
            yield
        except PairbenchError as err:
            self.add_error(err)

    def raise_if_any(self) -> None:
        if self.lines:
            raise InputProblems(self.lines, self.limit)
