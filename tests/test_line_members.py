"""Members of a dump (`lines.members`): blocks headed alike, folded whole by shape."""

from __future__ import annotations

import re

from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, optimizer_for
from tokenlab.optimizers.lines.members import fold_members


def _shown(parts) -> str:
    return "".join(part if isinstance(part, str) else "#ref" for part in parts)


def _held(parts) -> list[bytes]:
    return [part.data for part in parts if isinstance(part, Omission)]


def _archive_member(name: str, size: int, symbols: int, relocations: bool = True) -> str:
    """One object of an archive, as a dump of its headers lists it."""
    flags, has = ("0x00000011", "HAS_RELOC, HAS_SYMS") if relocations else ("0x00000010", "HAS_SYMS")
    text = (
        f"\n{name}:     file format elf64-x86-64\n"
        f"rw-r--r-- 0/0   {size} Jan  1 00:00 1970 {name}\n"
        f"architecture: i386:x86-64, flags {flags}:\n{has}\nstart address 0x0000000000000000\n\n"
        "Sections:\nIdx Name          Size      VMA               LMA               File off  Algn\n"
        f"  0 .text         {size // 8:08x}  0000000000000000  0000000000000000  00000040  2**4\n"
        "                  CONTENTS, ALLOC, LOAD, RELOC, READONLY, CODE\n"
        "SYMBOL TABLE:\n"
    )
    if not symbols:
        return text + "no symbols\n\n\n"
    text += "".join(f"{n * 16:016x} g     F .text\t0000000000000010 fn_{n}\n" for n in range(symbols))
    if relocations:
        text += "\n\nRELOCATION RECORDS FOR [.text]:\nOFFSET           TYPE              VALUE\n"
        text += "".join(f"{n * 8:016x} R_X86_64_PLT32    ext_{n}-0x4\n" for n in range(symbols))
    return text + "\n\n"


def _archive(members: int, empty: int | None = None, unrelocated: int | None = None) -> bytes:
    body = "".join(
        _archive_member(f"m{n}.o", 1000 + 8 * n, 0 if n == empty else 3 + n % 4, n != unrelocated)
        for n in range(members)
    )
    return f"In archive /usr/lib/libdemo.a:\n{body}".encode()


def _file_headers(files: int) -> bytes:
    """Several files' headers, one `File:` block each, a count varying in a title."""
    return "".join(
        f"\nFile: lib{n}.o\n\nELF Header:\n  Class:                             ELF64\n"
        f"  Type:                              REL (Relocatable file)\n\n"
        f"Symbol table '.symtab' contains {4 + n} entries:\n"
        + "".join(f"   {k}: 0000000000000000     0 FUNC    GLOBAL DEFAULT    1 f{k}\n" for k in range(4 + n))
        for n in range(files)
    ).encode()


def _symbols_per_file(files: int, failing: int | None = None) -> bytes:
    """A symbol listing per file under its `name:` line, defined and undefined apart."""
    blocks = []
    for n in range(files):
        defined = "".join(f"{k * 32:016x} T unit{n}_fn{k}\n" for k in range(4))
        undefined = "".join(f"                 U ext_{k}\n" for k in range(n % 3 + 1))
        if n == failing:
            undefined += f"nm: unit{n}.o: error: file truncated\n"
        blocks.append(f"unit{n}.o:\n{defined}\n{undefined}")
    return ("\n" + "\n".join(blocks)).encode()


def test_archive_members_fold_but_the_first_the_last_and_the_odd_ones() -> None:
    data = _archive(30, empty=7, unrelocated=12)
    parts = fold_members(data, Granularity.FINE)
    assert parts is not None
    shown = _shown(parts)
    assert shown.startswith("In archive /usr/lib/libdemo.a:\n")
    for whole in ("m0.o", "m7.o", "m12.o", "m29.o"):  # first, empty symbol table, other flags, last
        assert f"\n{whole}:     file format elf64-x86-64\n" in shown
    assert "\nno symbols\n" in shown and "flags 0x00000010:" in shown
    assert shown.count("file format elf64-x86-64\n") == 4
    assert "[×26 more members shaped like m0.o #ref] m1.o 1008; m2.o 1016; m3.o 1024;" in shown
    assert "m28.o 1224\n\n\n\nm7.o:     file format" in shown  # apart, as the folded m6 was
    closing = "[30 members headed like `m0.o:     file format elf64-x86-64`: 4 shown whole, 26 folded in 1 group(s)]"
    assert closing in shown


def test_folded_members_are_held_whole_by_their_ref() -> None:
    data = _archive(30, empty=7)
    parts = fold_members(data, Granularity.FINE)
    assert parts is not None
    (held,) = _held(parts)
    assert held.startswith(b"m1.o:     file format") and b"m28.o:" in held
    assert b"\nm7.o:" not in held and b"\nm29.o:" not in held
    assert held.count(b"RELOCATION RECORDS FOR [.text]:") == 27  # m1–m28 but the empty m7


def test_a_title_repeated_inside_members_is_no_member_header() -> None:
    # `RELOCATION RECORDS FOR [.text]:` opens a block in every member, but after the first
    # member's header: the members stay whole objects.
    shown = _shown(fold_members(_archive(20), Granularity.COARSE) or ())
    assert "members headed like `m0.o:" in shown
    assert "[members: 541 lines; 18 members folded: #ref]" in shown


def test_file_headers_fold_with_counts_set_aside() -> None:
    parts = fold_members(_file_headers(12), Granularity.COARSE)
    assert parts is not None
    shown = _shown(parts)
    assert "File: lib0.o" in shown and "File: lib11.o" in shown
    assert "File: lib5.o" not in shown
    assert "[×10 more members shaped like lib0.o] lib1.o; lib2.o;" in shown
    assert "Symbol table '.symtab' contains 4 entries:" in shown


def test_a_member_holding_a_failure_stays_whole() -> None:
    parts = fold_members(_symbols_per_file(15, failing=6), Granularity.FINE)
    assert parts is not None
    shown = _shown(parts)
    assert "nm: unit6.o: error: file truncated" in shown
    assert "unit6.o:\n0000000000000000 T unit6_fn0\n" in shown
    group = "[×12 more members shaped like unit0.o #ref] unit1.o unit1_fn0 unit1_fn1 unit1_fn2 …; unit2.o unit2_fn0"
    assert group in shown


def test_members_of_one_paragraph_are_records_left_to_the_record_folder() -> None:
    plan = "".join(
        f"\n  # demo.worker[\"w{n}\"] will be created\n  + resource \"demo\" \"worker\" {{\n"
        f"      + name = \"w{n}\"\n      + size = {n % 4}\n    }}\n"
        for n in range(30)
    )
    assert fold_members(plan.encode()) is None


def test_few_members_or_a_minor_share_are_left_alone() -> None:
    assert fold_members(_archive(5)) is None
    prose = ("A paragraph of prose that goes on for a while, " * 40 + "\n\n") * 60
    assert fold_members(_archive(10) + prose.encode()) is None


def test_the_text_optimizer_folds_members_and_restores_them() -> None:
    data = _archive(40, empty=3)
    result = optimizer_for("text")(data, OptimizerConfig(granularity=Granularity.COARSE))
    shown = _shown(result.parts)
    assert "[members: 1,066 lines; 37 members folded: #ref]" in shown
    (held,) = _held(result.parts)
    sources = [span for part in result.parts if isinstance(part, Omission) for span in part.source]
    assert held == b"".join(data[a:b] for a, b in sources)


def test_blocks_set_apart_by_lines_of_unicode_spaces_are_members_too() -> None:
    # `str.strip` reads a line of no-break spaces as blank: the check made on the bytes,
    # before the input is split in lines, must not miss such separators.
    spaced = re.sub("\n\n+", "\n\u00a0\u2003\n", _archive(20).decode()).encode()
    assert b"\n\n" not in spaced
    parts = fold_members(spaced, Granularity.COARSE)
    assert parts is not None
    assert b"".join(_held(parts)) in spaced


def test_inputs_without_blocks_are_no_members() -> None:
    assert fold_members(b" ".join(b"w%d" % n for n in range(5000)) + b"\n") is None
    assert fold_members(b"".join(b"%d\n" % (n % 7) for n in range(5000))) is None
