"""The log family: build and test output, linters, servers; anything read line by line.

    optimizer.py   repeated and near-repeated lines folded into templates with counts;
                   failures, warnings and tracebacks verbatim with their context
    model.py       its tunables (`LogLimits`), lines, templates and groups
    render.py      each folded group as one visible line
    units.py       where an anomaly ends: the lines that belong to it
    sections.py    a test run's failure sections and why each failed
    frames.py      how much of a diagnostic's code frame is shown
    library.py     frames in library code, folded
    pairs.py       values that vary together, kept together
    variants.py    groups whose shapes differ in one word, as one line
"""
