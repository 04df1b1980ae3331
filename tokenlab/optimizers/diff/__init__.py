"""The diff family: unified and combined diffs.

    optimizer.py   plans which lines leave the visible text, then renders (maps its input)
    parse.py       a diff read into per-file sections, never raising
    repeats.py     hunk bodies that repeat one shown earlier
"""
