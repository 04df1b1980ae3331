"""The disassembly family: `objdump -d`/`-S`, gdb's `disassemble` (`/s`, `/r`, `/m`).

    __init__.py    `detect`: most lines are instructions (an address, optional bytes, a
                   mnemonic), or a `<function>:` header
    parse.py       the model: each line's kind, function and instruction fields
    optimizer.py   every function header with its instruction count; the `=>` marker with
                   its neighbours, source lines, calls and jumps to named targets and
                   constant stores through pointers; the rest folded per function; a
                   stub alike others shows its header only
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    if b":\t" not in sample:  # both tools put a tab after an instruction's address
        return None
    from tokenlab.optimizers.disassembly.parse import looks_like_disassembly

    if looks_like_disassembly(sample):
        return "a disassembly listing: address, bytes and mnemonic columns"
    return None
