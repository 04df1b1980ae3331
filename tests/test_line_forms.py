"""A listing's row forms, learnt from the listing: the rows of a rare form are said, one line a form."""

from __future__ import annotations

from tokenlab.optimizers.lines.forms import FormLimits, described, rare_form_rows, row_forms


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
    kept = rare_form_rows(rows, limits=FormLimits(rows_kept=4))
    assert kept == [10]  # the form of one row fits; the form of eight would pass the bound
    assert len(rare_form_rows(rows)) == 9


def test_a_quoted_value_is_one_slot_however_many_words_it_holds() -> None:
    rows = [b'SET_%d "<CC> <FLAGS> -o <OUT> -c <SRC>"' % i for i in range(3)] + [b'OTHER "a b"', b"N 'x'>"]
    assert row_forms(rows) == [b"*"] * 5


def test_a_form_whose_rows_the_note_names_already_is_not_said_again() -> None:
    rows = [b"-Wopt%d  [disabled]" % i for i in range(100)] + [b"-Wa  [ignored]", b"-Wb  [ignored]"]
    assert rare_form_rows(rows) == [100, 101]
    assert rare_form_rows(rows, named=frozenset({100, 101})) == []


def test_rows_of_a_form_are_said_once_with_each_rows_varying_values() -> None:
    trace = _interpreter_trace()
    said = described(trace, rare_form_rows(trace))
    assert said == [
        "`# extension module '*' loaded from '/usr/lib/python3.11/lib-dynload/*.so'` ×2: _e20, _e40"
    ]
    install = _package_install()
    assert described(install, rare_form_rows(install)) == [
        "`Building wheel for * (pyproject.toml) ... done` ×3: pkg7, pkg30, pkg44"
    ]


def test_rows_that_differ_only_in_a_name_are_one_form_and_two_verbs_two_forms() -> None:
    rows = [b"# module m%d loaded from /lib/m%d.so" % (i, i) for i in range(3)]
    rows += [b"# module m%d executed from /lib/m%d.so" % (i, i) for i in range(3)]
    listing = rows + [b"import m%d" % i for i in range(3)]  # each name is held by three rows
    assert described(listing, range(6)) == [
        "`# module * loaded from /lib/*.so`, `# module * executed from /lib/*.so` each ×3: m0, m1, m2"
    ]  # two forms, whose rows give the same values: said once
    assert described(listing, [0, 1, 2, 3]) == [
        "`# module * loaded from /lib/*.so` ×3: m0, m1, m2",
        "`# module m0 executed from /lib/m0.so`",
    ]
