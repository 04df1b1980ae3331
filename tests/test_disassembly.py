"""Tests for the disassembly optimizer: classification, goldens, what stays visible, exact bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Golden, render_preview
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType, Granularity, Omission, OptimizerConfig
from tokenlab.optimizers.disassembly import optimizer as disassembly
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore

COARSE = OptimizerConfig()
FINE = OptimizerConfig(Granularity.FINE)
REAL = Path(__file__).parent.parent / "fixtures" / "real"
CAPTURES = ("objdump_d_ring.txt", "gdb_batch_disassemble_s_ring_main.txt")


def preview(data: bytes, config: OptimizerConfig = COARSE) -> str:
    return render_preview(disassembly.optimize(data, config))


def objdump_function(address: int, name: str, body: list[str]) -> list[str]:
    lines = [f"{address:016x} <{name}>:"]
    lines += [f"    {address + 4 * n:x}:\t48 89 e5             \t{text}" for n, text in enumerate(body)]
    return [*lines, ""]


def stub(address: int, name: str, slot: int) -> list[str]:
    return objdump_function(
        address,
        f"{name}@plt",
        [
            f"jmp    *0x2fca(%rip)        # {0x4000 + 8 * slot:x} <{name}@GLIBC_2.2.5>",
            f"push   ${slot:#x}",
            "jmp    1020 <_init+0x20>",
        ],
    )


def listing() -> bytes:
    lines = ["", "prog:     file format elf64-x86-64", "", "", "Disassembly of section .plt:", ""]
    for slot, name in enumerate(["free", "puts", "malloc", "open", "read"]):
        lines += stub(0x1030 + 16 * slot, name, slot)
    lines += ["Disassembly of section .text:", ""]
    body = [f"mov    -0x{8 * n:x}(%rbp),%rax" for n in range(1, 101)]
    body[5] = "movl   $0x0,-0x4(%rbp)"
    body[9] = "jle    12b1 <main+0x2a>"
    body[12] = "call   1050 <malloc@plt>"
    body[20] = "movl   $0x2a,(%rax)"
    body[25] = "call   1050 <malloc@plt>"
    body[30] = "call   1030 <free@plt>"
    lines += objdump_function(0x1287, "main", body)
    return "\n".join(lines).encode()


@pytest.mark.parametrize("name", CAPTURES)
@pytest.mark.parametrize("granularity", ["coarse", "fine"])
def test_capture_goldens(name: str, granularity: str, golden: Golden) -> None:
    config = FINE if granularity == "fine" else COARSE
    golden.check(f"disassembly/{name}.{granularity}.txt", preview((REAL / name).read_bytes(), config))


@pytest.mark.parametrize("name", CAPTURES)
def test_captures_classify_and_keep_their_signals(name: str, tmp_path: Path) -> None:
    data = (REAL / name).read_bytes()
    assert classify(data).content_type is ContentType.DISASSEMBLY
    expected = tuple((REAL / f"{name}.signals").read_text().splitlines())
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source=name, store=store, signals=expected)
    assert packet.signal_status.value == "PASS", packet.missing_signals
    assert packet.recovery_status.value == "PASS"
    assert restore(packet.visible.encode("utf-8"), store) == data


def test_calls_to_other_functions_stay_once_and_jumps_inside_fold() -> None:
    shown = preview(listing())
    assert shown.count("call   1050 <malloc@plt>") == 1
    assert "call   1030 <free@plt>" in shown
    assert "jle    12b1 <main+0x2a>" not in shown
    assert "0000000000001287 <main>:  [100 instructions]\n" in shown


def test_a_constant_stored_through_a_pointer_stays_and_one_into_the_frame_folds() -> None:
    shown = preview(listing())
    assert "movl   $0x2a,(%rax)" in shown
    assert "movl   $0x0,-0x4(%rbp)" not in shown


def test_alike_stubs_fold_as_one_group_naming_each() -> None:
    shown = preview(listing())
    assert "0000000000001030 <free@plt>:" in shown
    assert "0000000000001040 <puts@plt>:  [3 instructions, like <free@plt>]\n" in shown
    assert "0000000000001070 <read@plt>:  [3 instructions, like <free@plt>]\n" in shown
    assert "push   $0x4" not in shown and "<puts@GLIBC_2.2.5>" not in shown


def test_the_current_instruction_stays_with_its_neighbours() -> None:
    body = [f"   0x{0x1000 + n:016x} <+{n}>:\tmov    -0x{8 * n:x}(%rbp),%rax" for n in range(120)]
    body[60] = "=>" + body[60][2:]
    text = "\n".join(["Dump of assembler code for function work:", *body, "End of assembler dump.", ""])
    result = disassembly.optimize(text.encode(), COARSE)
    shown = render_preview(result)
    kept = [line for line in body if line in shown]
    assert kept == body[58:63]
    assert result.signals == (body[60],)
    assert "End of assembler dump." in shown


def test_coarse_and_fine_hold_the_same_folded_bytes() -> None:
    data = (REAL / "objdump_d_ring.txt").read_bytes()
    (coarse,) = [p.data for p in disassembly.optimize(data, COARSE).parts if isinstance(p, Omission)]
    fine = [p.data for p in disassembly.optimize(data, FINE).parts if isinstance(p, Omission)]
    assert len(fine) > 1 and b"".join(fine) == coarse


def test_small_listing_passes_through() -> None:
    data = "\n".join(objdump_function(0x1000, "tiny", ["push   %rbp", "ret"] * 5)).encode()
    assert classify(data).content_type is ContentType.DISASSEMBLY
    assert preview(data) == data.decode()


@pytest.mark.parametrize(
    "name", ["strace_f_ringd.log", "nm_D_C_size_sort_libssl.txt", "gcc_wall_61_files.log", "git_blame.txt"]
)
def test_other_captures_are_not_disassembly(name: str) -> None:
    assert classify((REAL / name).read_bytes()).content_type is not ContentType.DISASSEMBLY


def test_hostile_input_restores(tmp_path: Path) -> None:
    line = "    1000:\t55                   \tcall   1030 <x\udcff>\r\n=> 0x1 <+1>:\tmov $0x1,(%rax)\n"
    data = (line * 400).encode("utf-8", "surrogateescape") + b"\x00"
    assert classify(data).content_type is ContentType.DISASSEMBLY
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source="listing.txt", store=store)
    assert packet.recovery_status.value == "PASS"
    assert restore(packet.visible.encode("utf-8"), store) == data


def test_a_fold_names_the_calls_it_hides_in_an_objdump_listing() -> None:
    shown = preview(listing())
    assert "    … 9 instructions (calls malloc@plt)\n" in shown  # the second malloc, one kept above
    assert "(calls jle" not in shown and "main+0x2a" not in shown  # a jump inside names no call


def test_a_fold_names_the_calls_it_hides_in_a_debuggers_listing() -> None:
    body = [f"   0x{0x1000 + 4 * n:016x} <+{4 * n}>:\tmov    -0x{8 * n:x}(%rbp),%rax" for n in range(120)]
    body[10] = "   0x0000000000001028 <+40>:\tcall   0x1090 <printf@plt>"
    body[50] = "   0x00000000000010c8 <+200>:\tcall   0x1090 <printf@plt>"
    body[70] = "   0x0000000000001118 <+280>:\tcall   0x1090 <printf@plt>"
    body[90] = "   0x0000000000001168 <+360>:\tcallq  0x1097 <helper+7>"
    body[100] = "   0x0000000000001190 <+400>:\tcallq  0x1097 <helper+7>"
    text = "\n".join(["Dump of assembler code for function work:", *body, "End of assembler dump.", ""])
    shown = preview(text.encode())
    assert "call   0x1090 <printf@plt>" in shown
    assert "    … 79 instructions (calls printf@plt ×2)\n" in shown
    assert "    … 29 instructions\n" in shown  # a target past a symbol (`<helper+7>`) names no call
