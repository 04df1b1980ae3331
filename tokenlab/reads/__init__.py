"""Budgeted reads: deterministic outlines of files, and views of them that fit a token budget.

`outline` (and the modules it dispatches to) turns a file's text into a tree of symbols
with 1-based line ranges; the views, pointers and search build on that tree.
"""
