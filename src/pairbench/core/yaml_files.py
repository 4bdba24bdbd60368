"""YAML files read strictly: a key given twice in one mapping is an error, not a silent overwrite.

PyYAML keeps the last of two equal keys without a word, so a config file with two ``models:``
blocks, or a registry record with two ``refuse:`` lists, would lose the first one. Every YAML file
a user or the package writes (config files, the generated suites' registry and lexicon) is read
here; a problem is one line naming the file, line and column, and what to do.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from pairbench.core.errors import PairbenchError

_HINT = "fix the file (indent with spaces, close every bracket and quote)"


class YamlFileError(PairbenchError):
    """A YAML file that cannot be read, is not YAML, or gives a key twice in one mapping."""


class KeyGivenTwice(yaml.constructor.ConstructorError):
    """A mapping of a YAML file gives one key twice (the strict loader's error)."""


@functools.cache
def strict_loader(fast: bool = True):
    """PyYAML's safe loader that refuses a key given twice in one mapping (``fast``: on libyaml's
    parser where built in; else on PyYAML's own, whose syntax errors name what it expected)."""

    class StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader) if fast else yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            seen = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node.start_mark)
                except TypeError:  # a list or mapping as a key: nothing to compare
                    continue
                if first is not key_node.start_mark:
                    raise KeyGivenTwice(
                        problem=f"key {key!r} is given twice in one mapping (first on line {first.line + 1}); "
                        "YAML would keep only the last: merge the two or delete one",
                        problem_mark=key_node.start_mark,
                    )
            return super().construct_mapping(node, deep)

    return StrictLoader


def problem(path) -> str | None:
    """``file:line:column: ...`` when ``path`` cannot be read as YAML with unique keys (None when it can)."""
    try:
        read(path, fast=False)
    except YamlFileError as err:
        return str(err)
    return None


def read(path, fast: bool = True):
    """The contents of YAML file ``path``; :class:`YamlFileError` naming the file, line and column if not."""
    try:
        return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=strict_loader(fast))
    except UnicodeDecodeError as err:
        raise YamlFileError(f"{path}: not valid UTF-8 (byte {err.start}); save the file as UTF-8") from None
    except OSError as err:
        raise YamlFileError(f"{path}: cannot be read ({err.strerror})") from None
    except KeyGivenTwice as err:
        raise YamlFileError(f"{_where(path, err)}: {err.problem}") from None
    except yaml.MarkedYAMLError as err:
        raise _syntax_error(path, err) from None
    except yaml.YAMLError as err:
        raise YamlFileError(f"{path}: YAML syntax error: {err}; {_HINT}") from None


def _where(path, err) -> str:
    mark = err.problem_mark or err.context_mark
    return f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)


def _syntax_error(path, err) -> YamlFileError:
    context = f" ({err.context})" if err.context else ""
    return YamlFileError(f"{_where(path, err)}: YAML syntax error: {err.problem}{context}; {_HINT}")
