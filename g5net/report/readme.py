"""The README's generated blocks: each between its own pair of marker lines,
written by `make docs` (scripts/gen_docs.py) and checked current by tests."""

from __future__ import annotations


def with_block(readme: str, begin: str, end: str, block: str) -> str:
    """`readme` with the text from `begin` to `end` (markers included) replaced
    by `block`, which holds both markers."""
    head, found, rest = readme.partition(begin)
    _, closed, tail = rest.partition(end)
    if not found or not closed:
        raise ValueError(f"README.md has no block between {begin!r} and {end!r}")
    return head + block + tail
