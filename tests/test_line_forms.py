"""A listing's row forms, learnt from the listing: the rows of a rare form stay."""

from __future__ import annotations

from tokenlab.optimizers.lines.forms import FormLimits, rare_form_rows, row_forms


def test_a_form_sets_the_words_few_rows_hold_as_one_slot() -> None:
    rows = [b"# clear sys.path", b"# clear sys.audit hooks", b"# clear builtins._", b"  # clear x"]
    assert row_forms(rows) == [b"# clear *", b"# clear *", b"# clear *", b"  # clear *"]


def _interpreter_trace() -> list[bytes]:
    rows: list[bytes] = []
    for i in range(60):
        rows += [
            b"# code object from '/usr/lib/python3.11/m%d.pyc'" % i,
            b"import 'm%d' # <SourceFileLoader object at 0x7f%04x>" % (i, i),
        ]
        if i in (20, 40):
            rows.append(
                b"# extension module '_e%d' loaded from '/usr/lib/python3.11/lib-dynload/_e%d.so'" % (i, i)
            )
    return rows


def _package_install() -> list[bytes]:
    rows: list[bytes] = []
    for i in range(50):
        rows += [
            b"Collecting pkg%d==1.%d" % (i, i),
            b"  Downloading pkg%d-1.%d-py3-none-any.whl (12 kB)" % (i, i),
        ]
        if i in (7, 30, 44):
            rows.append(b"  Building wheel for pkg%d (pyproject.toml) ... done" % i)
    return rows


def test_rows_of_a_rare_form_are_found_in_listings_of_several_tools() -> None:
    trace = _interpreter_trace()
    assert [trace[at] for at in rare_form_rows(trace)] == [row for row in trace if b"extension module" in row]
    install = _package_install()
    assert [install[at] for at in rare_form_rows(install)] == [
        row for row in install if b"Building wheel" in row
    ]


def test_no_row_stands_out_where_most_forms_are_rare() -> None:
    prose = [b" ".join(b"w%d" % (i * 13 + j) for j in range(6)) for i in range(40)]
    assert rare_form_rows(prose) == []


def test_rare_rows_kept_are_bounded_rarest_forms_first() -> None:
    rows = [b"ok item %d" % i for i in range(200)]
    rows[10] = b"skipped item because of x"
    rows[50:58] = [b"retried item %d after timeout" % i for i in range(8)]
    kept = rare_form_rows(rows, FormLimits(rows_kept=4))
    assert kept == [10]  # the form of one row fits; the form of eight would pass the bound
    assert len(rare_form_rows(rows)) == 9
