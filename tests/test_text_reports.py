"""A runtime checker's or a debugger's report in plain text: a stack's first frames stay,
its library frames and a legend's entries fold."""

from __future__ import annotations

from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.text import optimizer as text
from tokenlab.optimizers.text import reports
from tokenlab.optimizers.text.config import DEFAULT_LIMITS

CHECKER = [
    b"==12==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020",
    b"READ of size 4 at 0x6020 thread T0",
    b"    #0 0x5555 in list_pop /src/list.c:44",
    b"    #1 0x5556 in main /src/main.c:9",
    b"    #2 0x7fff in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58",
    b"    #3 0x5557 in _start (/src/app+0x1120)",
    b"",
    b"freed by thread T0 here:",
    b"    #0 0x7ffe in free ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:52",
    b"    #1 0x5558 in list_drop /src/list.c:30",
    b"    #2 0x7fff in __libc_start_main_impl ../csu/libc-start.c:360",
]
# gdb's backtrace: frames in the C library first, then the program's, then start-up code.
DEBUGGER = [
    b"Program received signal SIGABRT, Aborted.",
    b"(gdb) bt",
    b"#0  0x00007ffff7a42e97 in raise () from /lib/x86_64-linux-gnu/libc.so.6",
    b"#1  0x00007ffff7a44801 in abort () from /lib/x86_64-linux-gnu/libc.so.6",
    b"#2  0x0000555555555189 in check (n=3) at crash.c:12",
    b"#3  0x00005555555551a4 in main () at crash.c:20",
    b"#4  0x00007ffff7a25b97 in __libc_start_main () from /lib/x86_64-linux-gnu/libc.so.6",
]


def test_a_stack_keeps_its_head_and_frames_up_to_the_readers_code() -> None:
    kept, folded = reports.stack_lines(CHECKER)
    assert kept == [1, 2, 3, 7, 8, 9]  # `READ of size 4 …`, #0-#1; `freed by …`, #0 (an allocator's), #1
    assert folded == [4, 5, 10]
    kept, folded = reports.stack_lines(DEBUGGER)
    assert kept == [1, 2, 3, 4, 5] and folded == [6]


def test_a_stack_without_the_readers_code_is_left_as_it_is() -> None:
    library_only = [b"Stack:", b"  #0 0x1 in memcpy /usr/lib/libc.so:1", b"  #1 0x2 in start ../csu/start.c:9"]
    assert reports.stack_lines(library_only) == ([], [])
    assert reports.stack_lines([b"#1 not a stack", b"#2 without its frame 0"]) == ([], [])


def test_a_legend_folds_its_entries() -> None:
    lines = [
        b"Coverage by file:",
        b"Legend (what each mark means):",
        b"  +   line run",
        b"  -   line never run",
        b"  ?   no code",
        b"a.c  92%",
        b"Shadow byte legend (one shadow byte represents 8 application bytes):",
        b"  Addressable:           00",
        b"  Heap left redzone:       fa",
        b"",
        b"  Not under the legend",
    ]
    assert reports.legend_lines(lines) == [2, 3, 4, 7, 8]
    assert reports.legend_lines([b"The legend says: nothing", b"  more"]) == []


def test_a_report_shows_what_happened_where_and_folds_start_up_frames_and_its_legend() -> None:
    legend = [b"Shadow byte legend (one shadow byte represents 8 application bytes):"]
    legend += [b"  %s redzone:%s f%d" % (name, b" " * 8, n) for n, name in enumerate([b"Heap left", b"Stack left", b"Stack mid", b"Stack right", b"Global", b"Intra object"] * 4)]
    shadow = [b"Shadow bytes around the buggy address:", *(b"  0x0c18%04x: " % (16 * n) + b"fa " * 16 for n in range(12))]
    summary = b"SUMMARY: AddressSanitizer: heap-use-after-free /src/list.c:44 in list_pop"
    data = b"\n".join([b"=" * 65, *CHECKER, b"", summary, *shadow, *legend, b"==12==ABORTING", b""])
    assert len(data) >= DEFAULT_LIMITS.small_doc_bytes
    shown = "".join(part for part in text.optimize(data, OptimizerConfig(Granularity.COARSE)).parts if isinstance(part, str))
    for line in (CHECKER[1], CHECKER[2], CHECKER[3], CHECKER[7], CHECKER[9]):
        assert line.decode() in shown
    assert "_start (" not in shown and "Heap left redzone" not in shown
    assert "Shadow byte legend" in shown and "==12==ABORTING" in shown
