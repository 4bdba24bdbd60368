"""Errors that a user can act on.

Every :class:`PairbenchError` message says *what* is wrong (which file, line, key
or model) and *what to do*. Workflow scripts print these without a traceback.
"""


class PairbenchError(Exception):
    """An error caused by input or configuration that the user can fix."""


class SuiteError(PairbenchError):
    """A malformed pair-suite file."""


class SourceError(PairbenchError):
    """A model or dataset that cannot be obtained from its configured source."""


class ConfigError(PairbenchError):
    """A configuration value that passes the schema but cannot work."""
