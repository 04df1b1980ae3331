"""The XML family: test and lint reports (JUnit/surefire, checkstyle) and other XML.

    optimizer.py    failing testcases and their suites kept, runs of passing ones behind refs;
                    other XML folds long runs of same-tag siblings
    checkstyle.py   checkstyle reports read as diagnostics and grouped as a log's lines
    scan.py         the scanner: `Element`s with byte offsets, entities never expanded
"""
