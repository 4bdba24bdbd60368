"""The study's tables as HTML pages for the Snakemake report.

Each table becomes a folder holding ``index.html`` (registered in the rule with
``report(directory(...), htmlindex="index.html")``), so the report shows it as a readable table
and not only as a download. The page is plain HTML from tabulate (already a dependency): no
scripts, no external styles, so it renders inside the report offline.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from tabulate import tabulate

from pairbench.core.io import atomic_path
from pairbench.study.marks import table_smoke_note
from pairbench.study.tables import SHOWN_ROWS, markdown_formats, nan_note

STYLE = """
body { font-family: system-ui, sans-serif; font-size: 14px; margin: 1em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f0f0f0; position: sticky; top: 0; }
td:first-child, th:first-child { text-align: left; }
tr:nth-child(even) td { background: #fafafa; }
p.note { max-width: 60em; color: #333; }
"""


def display_frame(frame: pl.DataFrame, float_format: str | None = None) -> list[list[str]]:
    """Rows as strings: p-values in significant digits, other floats with 4 decimals (every float
    in ``float_format`` when given), missing empty."""
    formats = (float_format,) * frame.width if float_format else markdown_formats(frame)
    rows = []
    for row in frame.iter_rows():
        cells = []
        for value, fmt in zip(row, formats):
            if value is None or (isinstance(value, float) and value != value):
                cells.append("")
            elif isinstance(value, float):
                cells.append(format(value, fmt))
            else:
                cells.append(str(value))
        rows.append(cells)
    return rows


def table_page(frame: pl.DataFrame, title: str, note: str = "", float_format: str | None = None) -> str:
    """One self-contained HTML page with the whole table."""
    body = tabulate(display_frame(frame, float_format), headers=frame.columns, tablefmt="html", disable_numparse=True)
    note_html = f'<p class="note">{html.escape(note)}</p>' if note else ""
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
        f"<body><h2>{html.escape(title)}</h2>{note_html}\n{body}\n</body></html>\n"
    )


def write_table_page(
    csv_path: str | os.PathLike,
    folder: str | os.PathLike,
    title: str,
    note: str = "",
    smoke_models=(),
    float_format: str | None = None,
) -> Path:
    """Read a table's CSV and write ``folder/index.html`` atomically, ``note`` above the table
    (then the smoke runs it names, :func:`pairbench.study.marks.table_smoke_note`, and where it holds NaN)."""
    frame = pl.read_csv(csv_path, infer_schema_length=None)
    note = " ".join(n for n in (note, table_smoke_note(frame, smoke_models), nan_note(frame)) if n)
    if frame.height > SHOWN_ROWS:
        note = f"{note} The first {SHOWN_ROWS:,} of {frame.height:,} rows; every row is in {Path(csv_path).name}."
        frame = frame.head(SHOWN_ROWS)
    with atomic_path(folder) as tmp:
        tmp.mkdir(parents=True)
        (tmp / "index.html").write_text(table_page(frame, title, note, float_format), encoding="utf-8")
    return Path(folder)


def write_table_pages(csv_paths, folders, suite: str = "", extra_note: str = "", smoke_models=()) -> None:
    """One page per study table: ``csv_paths[i]`` -> ``folders[i]/index.html``, its registry note
    (and ``extra_note``, e.g. an audited suite's audit) above; smoke runs named."""
    from pairbench.study.aggregate import NOTES

    for csv_path, folder in zip(csv_paths, folders):
        name = Path(csv_path).stem
        title = f"{name} ({suite})" if suite else name
        note = " ".join(n for n in (NOTES[name], extra_note) if n)
        write_table_page(csv_path, folder, title, note, smoke_models=smoke_models)


# Every table a stage writes (a ``results/tables/**.csv`` target of its plan) gets a page under
# this folder, in the report category of the stage's figures (the rule stage_table_page).
STAGE_PAGES = "results/report/stages"
STAGE_CATEGORIES = {
    "cross_encoder": "Cross-encoder training",
    "frozen_features": "Frozen-feature training",
    "celi": "CELI reranking",
}


@dataclass(frozen=True)
class StagePage:
    """The report page of one stage table: ``key`` is the table's path under ``results/tables/``
    without ``.csv`` (``celi/table2``, ``frozen_features/{run}/progression``)."""

    stage: str
    key: str

    @property
    def csv(self) -> str:
        return f"results/tables/{self.key}.csv"

    @property
    def md(self) -> str:
        return f"results/tables/{self.key}.md"

    @property
    def folder(self) -> str:
        return f"{STAGE_PAGES}/{self.key}"

    @property
    def category(self) -> str:
        return STAGE_CATEGORIES.get(self.stage, self.stage)

    @property
    def subcategory(self) -> str | None:
        """The folder between the stage's and the table (a run), if any."""
        parts = self.key.split("/")
        return parts[1] if len(parts) > 2 else None


def stage_table_pages(plans) -> dict[str, StagePage]:
    """Key -> :class:`StagePage` for every table the planned stages end with."""
    pages = {}
    for stage, plan in plans.items():
        for target in plan.targets:
            if target.startswith("results/tables/") and target.endswith(".csv"):
                page = StagePage(stage, target[len("results/tables/") : -len(".csv")])
                pages[page.key] = page
    return pages


def markdown_preamble(md_path: str | os.PathLike) -> tuple[str, str]:
    """The title (the first heading) and the note (the text before the table) of a Markdown table."""
    title, note = "", []
    for line in Path(md_path).read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            break
        if line.startswith("#") and not title:
            title = line.lstrip("#").strip()
        elif line.strip():
            note.append(line.strip())
    return title, " ".join(note)


def write_stage_table_page(csv_path, md_path, folder) -> Path:
    """A stage table's page: the title and note of its Markdown (a smoke run's note among them);
    numbers in 4 significant digits, as a stage's Markdown shows them (a learning rate of 5e-05 too)."""
    title, note = markdown_preamble(md_path) if Path(md_path).exists() else ("", "")
    return write_table_page(csv_path, folder, title or Path(csv_path).stem, note, float_format=".4g")


def enable_report_figures() -> None:
    """Add the reST directive ``pairbench-figure`` to docutils: a figure embedded as a data URI, so that the
    report's first page (``workflow/report/workflow.rst``) shows the forest plot itself.

    Snakemake's own ``embeddedfigure`` leaves the file's path in the page (its figure class runs
    docutils' ``run`` before the mixin that would embed it), which a self-contained report
    cannot show. Called while the workflow is read; the report is built in that process.
    """
    import base64
    import mimetypes

    from docutils.parsers.rst import directives
    from docutils.parsers.rst.directives.images import Figure

    class EmbeddedFigure(Figure):
        def run(self):
            path = Path(self.arguments[0])
            if not path.is_file():
                return []  # not made in this run: the figure is left out, the page still builds
            mime = mimetypes.guess_type(path.name)[0] or "image/png"
            self.options.setdefault("alt", str(path))
            self.arguments[0] = f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
            return super().run()

    directives.register_directive("pairbench-figure", EmbeddedFigure)
