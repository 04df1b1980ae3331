"""Exact o200k_base token counts, from one word to a gigabyte of input.

    tokens.py    the tokenizer: the offline vocabulary, `count`, safe cuts
    counter.py   `TokenCounter`: an analysis's counts, reusing the raw input's count
    index.py     the raw input's index: the count of each chunk between safe cuts
    runs.py      texts made of the input's bytes: their runs, counted from the index
    crew.py      the tokenizer threads, and helpers for large inputs

`counter.py`'s docstring tells how the pieces fit. Names with a leading underscore in
index, runs and crew are this package's own, used by `counter.py`.
"""
