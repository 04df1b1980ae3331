"""The git status family: long form, `--short`, `-b`, `-uall`, `--porcelain` v1 and v2.

    optimizer.py   branch line, sections and remarks verbatim; every path named, entries
                   that share a status and folder on one line
"""
