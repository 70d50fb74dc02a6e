"""Holds a rendered page of the book to its Markdown: the same headings, in the same order and at
the same levels, and under each heading as many code blocks and diagrams as the Markdown opens
there. mdBook pastes an included file as it is, so a listing indented inside a list item can end
where the reader does not expect it: the included file's `#` comments then render as headings, and
a stray fence swallows the prose after it. Neither shows in the Markdown, both show here.

Usage: page-structure.py SOURCE.md REPORT.json  (the report .ci/structure-check.js wrote)
Prints each difference and exits 1 if there is one.
"""

import difflib
import json
import re
import sys

HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(\s+#+)?\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")


def plain(text):
    """A heading's text as the reader sees it: links, code spans, emphasis and tags dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("\\", "")
    text = re.sub(r"[`*]", "", text)
    # mdBook's smart punctuation: curly quotes, dashes and ellipses in the page.
    for typed, shown in (("---", "\u2014"), ("--", "\u2013"), ("...", "\u2026")):
        text = text.replace(typed, shown)
    for curly, straight in (("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"')):
        text = text.replace(curly, straight)
    return " ".join(text.split())


def source_structure(markdown):
    """The headings of the Markdown itself (not of what it includes), and its code blocks and
    diagrams, each with the number of headings above it."""
    headings, blocks = [], []
    fence = None  # the characters that close the listing we are in
    comment = False
    for line in markdown.splitlines():
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            continue
        if comment:
            comment = "-->" not in line
            continue
        if line.lstrip().startswith("<!--") and "-->" not in line:
            comment = True
            continue
        opened = FENCE.match(line)
        if opened:
            fence = opened.group(1)
            kind = "diagram" if opened.group(2) == "mermaid" else "code"
            blocks.append({"kind": kind, "under": len(headings)})
            continue
        heading = HEADING.match(line)
        if heading:
            headings.append({"level": len(heading.group(1)), "text": plain(heading.group(2))})
    return headings, blocks


def counts(blocks, sections):
    """How many blocks of each kind stand under each heading."""
    table = {}
    for block in blocks:
        key = (min(block["under"], sections), block["kind"])
        table[key] = table.get(key, 0) + 1
    return table


def main():
    source_path, report_path = sys.argv[1], sys.argv[2]
    with open(source_path, encoding="utf-8") as f:
        want_headings, want_blocks = source_structure(f.read())
    with open(report_path, encoding="utf-8") as f:
        report = json.load(f)
    got_headings = [{"level": h["level"], "text": plain(h["text"])} for h in report["headings"]]
    problems = []

    shown = lambda h: f"{'#' * h['level']} {h['text']}"
    want, got = [shown(h) for h in want_headings], [shown(h) for h in got_headings]
    for tag, a0, a1, b0, b1 in difflib.SequenceMatcher(a=want, b=got, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            for heading in got[b0:b1]:
                problems.append(f"renders the heading {heading!r}, which the Markdown does not have")
        if tag in ("replace", "delete"):
            for heading in want[a0:a1]:
                problems.append(f"does not render the Markdown's heading {heading!r}")

    if not problems:
        # Same headings: compare the blocks section by section, so the report says where.
        titles = ["(above the first heading)"] + want
        sections = len(want)
        want_counts, got_counts = counts(want_blocks, sections), counts(report["blocks"], sections)
        for key in sorted(set(want_counts) | set(got_counts)):
            w, g = want_counts.get(key, 0), got_counts.get(key, 0)
            if w != g:
                section, kind = key
                starts = [b["start"] for b in report["blocks"] if (b["under"], b["kind"]) == key]
                problems.append(
                    f"under {titles[section]!r}: the Markdown opens {w} {kind} block(s), "
                    f"the page shows {g}" + (f" (starting {starts!r})" if g > w else "")
                )
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
