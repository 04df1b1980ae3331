"""Exact o200k_base token counts, from one word to a gigabyte of input.

    tokens.py    the tokenizer: the offline vocabulary, `count`, safe cuts
    counter.py   `TokenCounter`: an analysis's counts, reusing the raw input's count
"""
