"""The README and docs/ name only what exists: every project path, module and function in backticks, every
name of the package listing (which lists every module of the folders it opens) and the scripts,
configs and modules of the commands in fenced blocks."""

from __future__ import annotations

import functools
import importlib
import re
from pathlib import Path

from conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# Folders and files of the repository a doc may name (outputs under results/ are made by a run).
TRACKED_ROOTS = ("src/", "workflow/", "docs/", "tests/", "config/", "bench/", "envs/", "profiles/", ".ci/")
ROOT_FILES = ("Snakefile", "config.yaml", "pyproject.toml", "CHANGELOG.md", "README.md")
CODE_DIRS = ("src/pairbench", "workflow", "tests", "bench")
# Functions of the libraries pairbench uses that the docs name (not the project's to define).
LIBRARY_FUNCTIONS = {"validate", "CrossEncoder", "load_dataset", "model"}
# Names of the libraries and executors pairbench uses that the docs write without parentheses.
LIBRARY_NAMES = {"load_model_from_init_py"}


def spans(path) -> list[tuple[int, str]]:
    """Every inline code span of a Markdown file with its line (fenced blocks left out)."""
    text = re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), path.read_text(), flags=re.S | re.M)
    return [(n, span) for n, line in enumerate(text.splitlines(), 1) for span in re.findall(r"`([^`\n]+)`", line)]


def named_path(span: str) -> str | None:
    """The repository path a span names, or None (placeholders, commands and run outputs are not paths)."""
    if any(c in span for c in " <{*$=") or "://" in span:
        return None
    span = span.rstrip("/")
    if "::" in span:
        return span
    if span.startswith(TRACKED_ROOTS) or span in ROOT_FILES:
        return span
    if re.fullmatch(r"\w+(/\w+)*\.(py|smk)", span) and "/" in span:
        return span  # a path inside the package or the workflow, e.g. core/io.py
    return None


def path_exists(span: str) -> bool:
    if "::" in span:  # a test id: the file defines the test
        file, test = span.split("::", 1)
        return (REPO / file).is_file() and f"def {test}(" in (REPO / file).read_text()
    return any((REPO / base / span).exists() for base in ("", "src/pairbench", "workflow", "workflow/rules"))


def module_exists(dotted: str) -> bool:
    """``pairbench.x.y`` or ``pairbench.x.y.name`` resolves to a module or a module attribute."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@functools.cache
def defined_names() -> frozenset[str]:
    """Every function, class and top-level name the project's code defines."""
    names = set()
    for base in CODE_DIRS:
        for path in (REPO / base).rglob("*"):
            if path.suffix in (".py", ".smk") or path.name == "Snakefile":
                text = path.read_text(errors="replace")
                names |= set(re.findall(r"^\s*(?:def|class|rule)\s+(\w+)", text, re.M))
                names |= set(re.findall(r"^(\w+)\s*[:=]", text, re.M))
    names |= set(re.findall(r"^(\w+)\s*[:=]", (REPO / "Snakefile").read_text(), re.M))
    return frozenset(names)


@functools.cache
def known_words() -> frozenset[str]:
    """Every word of the project's code, schemas and configs: a name the docs write without
    parentheses (a dotted name, or a snake_case one) must be one of them."""
    words = set()
    files = [p for base in CODE_DIRS for p in (REPO / base).rglob("*") if p.suffix in (".py", ".smk", ".yaml", ".rst")]
    files += [
        REPO / "Snakefile",
        REPO / "config.yaml",
        REPO / "pyproject.toml",
        *(REPO / "config").glob("*.yaml"),
        *(REPO / "profiles").rglob("*.yaml"),
    ]
    for file in files:
        if file.resolve() != Path(__file__).resolve():  # this file's probe names do not count
            words |= set(re.findall(r"\w+", file.read_text(errors="replace")))
    return frozenset(words | LIBRARY_NAMES)


FILE_SUFFIXES = (
    "csv",
    "md",
    "json",
    "jsonl",
    "png",
    "parquet",
    "tsv",
    "yaml",
    "py",
    "smk",
    "rst",
    "txt",
    "html",
    "pt",
    "npy",
    "trec",
    "toml",
    "gz",
)


def unknown_words(span: str) -> list[str]:
    """The parts of a dotted or snake_case name (no parentheses) that the project never writes."""
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+|[a-z][a-z0-9]*(_[a-z0-9]+)+", span):
        return []
    if span.rsplit(".", 1)[-1] in FILE_SUFFIXES:
        return []
    return [part for part in span.split(".") if part not in known_words()]


def problems_of(path) -> list[str]:
    """One line per span naming a path, module or function that does not exist."""
    out = []
    for number, span in spans(path):
        shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path.name
        where = f"{shown}:{number}: `{span}`"
        call = re.fullmatch(r"([\w.]+)\((.*)\)", span)
        if (target := named_path(span)) is not None:
            if not path_exists(target):
                out.append(f"{where}: no such path")
        elif re.fullmatch(r"pairbench(\.\w+)+", span):
            if not module_exists(span):
                out.append(f"{where}: no such module or name")
        elif call and call.group(1).startswith("pairbench."):
            if not module_exists(call.group(1)):
                out.append(f"{where}: no such function")
        elif call and "." not in call.group(1) and call.group(1) not in LIBRARY_FUNCTIONS:
            if call.group(1) not in defined_names():
                out.append(f"{where}: no such function")
        elif unknown := unknown_words(span):
            out.append(f"{where}: no such name ({', '.join(unknown)})")
    return out + fenced_problems(path)


# ---------------------------------------------------------------------------------------------
# Fenced blocks: the package listing and the paths of commands
# ---------------------------------------------------------------------------------------------

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
# A name in a package listing: a folder (`core/`) or a file with a suffix (`io.py`).
LISTED = re.compile(r"[\w.-]+/|[\w-]+\.\w+")


# In a command, the words after these name a file of the repository that the command runs or
# reads (a script, a config, a profile); the other paths of a command may be what it writes.
COMMAND_READS = {"", "python", "bash", "sudo", "--configfile", "--workflow-profile", "--profile", "-s", "--snakefile"}


def fenced_blocks(path) -> list[tuple[int, str, list[str]]]:
    """(line of its first line, language, lines) of every fenced block of a Markdown file."""
    text = path.read_text()
    return [(text.count("\n", 0, m.start(2)) + 1, m.group(1), m.group(2).splitlines()) for m in FENCE.finditer(text)]


def is_listing(lines: list[str]) -> bool:
    """A package listing: its first line is a folder of the repository (`src/pairbench/`)."""
    return bool(lines) and re.fullmatch(r"[\w./-]+/", lines[0].strip()) is not None


def listing_entries(first: int, lines: list[str]) -> list[tuple[int, str, str]]:
    """(line, path from the repository root, description) of every name of a package listing:
    an indented name lies in the folder named on the nearest line above it that is less indented."""
    folders = [(-1, lines[0].strip())]  # (indent, folder path), innermost last
    out = []
    for number, line in enumerate(lines[1:], first + 1):
        match = re.match(r"( *)(\S+)(.*)", line)
        if not match or not LISTED.fullmatch(match.group(2)):
            continue  # a blank line or a continued description
        indent, name = len(match.group(1)), match.group(2)
        while folders[-1][0] >= indent:
            folders.pop()
        out.append((number, folders[-1][1] + name, match.group(3)))
        if name.endswith("/"):
            folders.append((indent, folders[-1][1] + name))
    return out


def listing_problems(where: str, first: int, lines: list[str]) -> list[str]:
    """Every listed name exists (and a file a description names beside it); every folder the
    listing opens has each of its modules and sub-packages named."""
    out, named, opened = [], set(), {lines[0].strip().rstrip("/")}
    for number, listed, description in listing_entries(first, lines):
        folder = str(Path(listed.rstrip("/")).parent)
        for path in [listed, *(f"{folder}/{name}" for name in re.findall(r"\b\w+\.py\b", description))]:
            named.add(path.rstrip("/"))
            if not (REPO / path).exists():
                out.append(f"{where}:{number}: `{path}`: no such path")
        opened.add(folder)
    for folder in sorted(opened):
        for child in sorted((REPO / folder).iterdir()):
            module = child.suffix == ".py" and child.name != "__init__.py"
            package = child.is_dir() and (child / "__init__.py").exists()
            if (module or package) and f"{folder}/{child.name}" not in named:
                out.append(
                    f"{where}:{first}: `{folder}/{child.name}` is not in the package listing: add it with what it does"
                )
    return out


def fenced_problems(path) -> list[str]:
    """A package listing names what the package holds; a command names existing paths and modules."""
    shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path.name
    out = []
    for first, _, lines in fenced_blocks(path):
        if is_listing(lines):
            out += listing_problems(str(shown), first, lines)
            continue
        for number, line in enumerate(lines, first):
            words = [word.strip("\"'`,;()") for word in line.split()]
            for before, word in zip(["", *words], words, strict=False):
                if before == "-m" and re.fullmatch(r"pairbench(\.\w+)+", word) and not module_exists(word):
                    out.append(f"{shown}:{number}: `{word}`: no such module")
                elif before in COMMAND_READS and (target := named_path(word)) and not path_exists(target):
                    out.append(f"{shown}:{number}: `{word}`: no such path")
    return out


def test_docs_name_only_what_exists():
    problems = [p for doc in DOCS for p in problems_of(doc)]
    assert problems == []


def test_the_check_catches_a_missing_name(tmp_path):
    doc = tmp_path / "probe.md"
    doc.write_text(
        "`stage_resources(stage, job)` `src/pairbench/nowhere.py` `pairbench.stages.NOPE`\n"
        "`no_such_helper(x)` `core/io.py` `pairbench.study.kinds.KINDS`\n"
        "`register_nothing_here` `stage_resources` `workflow.is_main_process` `training.no_such_stage`\n"
        "`results/tables/x.csv` `join_study`\n"
    )
    assert [p.split(": ", 1)[1] for p in problems_of(doc)] == [
        "`src/pairbench/nowhere.py`: no such path",
        "`pairbench.stages.NOPE`: no such module or name",
        "`no_such_helper(x)`: no such function",
        "`register_nothing_here`: no such name (register_nothing_here)",
        "`training.no_such_stage`: no such name (no_such_stage)",
    ]


def test_fenced_blocks_are_read_too(tmp_path):
    doc = tmp_path / "probe.md"
    doc.write_text(
        "# probe\n\n```\nsrc/pairbench/\n  core/             shared\n    io.py           atomic writes\n"
        "    gone.py         moved away; see gone_too.py\n  study/\n    suite.py        suites\n"
        "  stages.py         the registry\n```\n\n```bash\npython bench/no_such_script.py --csv bench/written.csv\n"
        "snakemake --configfile config/study.yaml --configfile config/nope.yaml\npython -m pairbench.nope\n```\n"
    )
    problems = problems_of(doc)
    # an indented name is read inside the folder above it, a file its description names beside it
    assert "probe.md:7: `src/pairbench/core/gone.py`: no such path" in problems
    assert "probe.md:7: `src/pairbench/core/gone_too.py`: no such path" in problems
    # every module and sub-package of a folder the listing opens is named, at the listing's first line
    missing = "is not in the package listing: add it with what it does"
    assert f"probe.md:4: `src/pairbench/core/errors.py` {missing}" in problems
    assert f"probe.md:4: `src/pairbench/study/kinds.py` {missing}" in problems
    assert f"probe.md:4: `src/pairbench/celi` {missing}" in problems
    # named ones are not asked for, nor the contents of a folder the listing does not open
    assert not [p for p in problems if "`src/pairbench/core/io.py`" in p or "`src/pairbench/study/suite.py`" in p]
    assert not [p for p in problems if "`src/pairbench/stages.py`" in p or "/celi/" in p or "/testing/" in p]
    # a command's script, config and module exist; what it writes is not asked for
    assert "probe.md:14: `bench/no_such_script.py`: no such path" in problems
    assert "probe.md:15: `config/nope.yaml`: no such path" in problems
    assert "probe.md:16: `pairbench.nope`: no such module" in problems
    assert not [p for p in problems if "written.csv" in p or "study.yaml" in p]
    lines = doc.read_text().splitlines()
    assert [(n, path) for n, path, _ in listing_entries(4, lines[3:10])] == [
        (5, "src/pairbench/core/"),
        (6, "src/pairbench/core/io.py"),
        (7, "src/pairbench/core/gone.py"),
        (8, "src/pairbench/study/"),
        (9, "src/pairbench/study/suite.py"),
        (10, "src/pairbench/stages.py"),
    ]
