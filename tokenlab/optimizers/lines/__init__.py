"""What a line is, shared by every optimizer family and by the SIGNAL stage.

    shapes.py     a line's shape: ANSI codes, failure and summary words, locations, slots
    shown.py      whether a visible text shows a line: group lines, headings, folder lists
    values.py     lines that differ only in values, shown once with their values
    numbered.py   runs of numbered names (`f1.txt … f60.txt`) said once
    records.py    multi-line (and one-line) records of one skeleton: the first whole, a group line for the rest
    columns.py    a column of records' values said once by its rule: runs, cycles, stretches
    scan.py       patterns looked for over a whole large input, a slice at a time
    words.py      a searched word whole or inside a name, and a window around it
    quantities.py the lines of a run whose time, size or count stands out
    extremes.py   a column of sizes told by its header or units; the largest size a fold hides
"""
