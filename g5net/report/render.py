"""Write a report's sections as Markdown and as a self-contained HTML page
(the PNGs sit beside both files)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from dataclasses import dataclass

from .figure_files import Figure
from .tables import Table


@dataclass(frozen=True)
class Note:
    """A section of words only: a plot left out, and why."""
    title: str
    text: str


Section = Table | Figure | Note

_CSS = """body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 2em;font-size:0.9em}
th,td{padding:0.3em 0.7em;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}
th{background:#f4f4f4}td:nth-child(-n+4){text-align:left}
img{max-width:100%;margin:0.5em 0 2em}p.meta{color:#666}"""


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(title: str, meta: str, sections: Sequence[Section]) -> str:
    out = [f"# {title}", "", meta, ""]
    for s in sections:
        out += [f"## {s.title}", ""]
        if isinstance(s, Figure):
            out += [f"![{s.title}]({s.file})", ""]
            if s.also:
                out += ["Also as " + ", ".join(f"[{f.rpartition('.')[2].upper()}]({f})" for f in s.also), ""]
            continue
        if isinstance(s, Note):
            out += [s.text, ""]
            continue
        out.append("| " + " | ".join(map(_md_cell, s.header)) + " |")
        out.append("|" + "|".join("---" if i < 4 else "---:" for i in range(len(s.header))) + "|")
        out += ["| " + " | ".join(map(_md_cell, row)) + " |" for row in s.rows]
        out.append("")
    return "\n".join(out)


def page(title: str, meta: str, sections: Sequence[Section]) -> str:
    e = html.escape
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(title)}</title>",
           f"<style>{_CSS}</style></head><body>", f"<h1>{e(title)}</h1>", f"<p class='meta'>{e(meta)}</p>"]
    for s in sections:
        out.append(f"<h2>{e(s.title)}</h2>")
        if isinstance(s, Figure):
            out.append(f"<img src='{e(s.file)}' alt='{e(s.title)}'>")
            if s.also:
                out.append("<p class='meta'>Also as " + ", ".join(
                    f"<a href='{e(f)}'>{e(f.rpartition('.')[2].upper())}</a>" for f in s.also) + "</p>")
            continue
        if isinstance(s, Note):
            out.append(f"<p>{e(s.text)}</p>")
            continue
        out.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in s.header) + "</tr>")
        out += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in s.rows]
        out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write(out: Path, title: str, meta: str, sections: Sequence[Section]) -> tuple[Path, Path]:
    md, htm = out / "report.md", out / "report.html"
    md.write_text(markdown(title, meta, sections))
    htm.write_text(page(title, meta, sections))
    return md, htm
