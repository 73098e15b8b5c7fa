"""The x86-64 category by execution: each snippet in a C harness, run in the sandbox on generated
register values and memory.

The harness (:func:`harness_source`) is one C file with the snippet in top-level assembly, as a
function that saves the callee-saved registers and the stack pointer, switches to a stack inside a
fixed memory arena, loads every general-purpose register and ``%xmm0``-``%xmm15`` from the input,
runs the snippet (its labels renamed, each ``ret`` a jump to the end), stores the registers, and
returns. ``main`` reads one input, fills the arena from its seed (a mix of zeros, small numbers,
raw words and pointers into the arena, so that the list walks and loads the snippets do find
memory), calls the function and prints the live-out registers, each at its width (``%eax``: the low
32 bits). Only the live-out registers are printed, so the outputs are equal exactly when the
category's definition says the programs agree on that input.

An input is three lines: the arena seed; the 16 general-purpose registers in the order rax, rbx,
rcx, rdx, rsi, rdi, rbp, rsp (ignored: the harness owns the stack), r8..r15; the 16 xmm registers
as 32 64-bit halves. :func:`register_inputs` makes them: boundary values, random words and arena
pointers in the live-in registers, seeded.

A fault is an outcome: a snippet that faults where the other finishes differs from it, as STOKE's
own test cases count a signal (its ``sig_penalty``); two that fault alike agree.

Not executable (with the reason): a snippet that calls out (``call``, ``syscall``, ``int``), uses a
directive other than the layout ones (``.text``, ``.globl``, ``.type``, ``.size``, ``.p2align``...:
dropped; ``.incbin`` or ``.include`` would read files at build time), names a register the harness
does not set (``%ymm``, segment registers), or does not assemble.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from divergent.bench.equibench.data import Pair

__all__ = ["ARENA_BASE", "NotRunnable", "execute_x86", "harness_source", "register_inputs"]

#: where the harness maps its memory arena (fixed, so inputs may hold pointers into it)
ARENA_BASE = 0x200000000
ARENA_BYTES = 1 << 20
#: the stack the snippet runs on is in the middle of the arena: -8(%rsp) and 8(%rsp) are both arena words
STACK_OFFSET = ARENA_BYTES // 2

GPRS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")
_LEGACY32 = {"eax": 0, "ebx": 1, "ecx": 2, "edx": 3, "esi": 4, "edi": 5, "ebp": 6, "esp": 7}
_LEGACY16 = {"ax": 0, "bx": 1, "cx": 2, "dx": 3, "si": 4, "di": 5, "bp": 6, "sp": 7}
_LEGACY8 = {"al": 0, "bl": 1, "cl": 2, "dl": 3, "sil": 4, "dil": 5, "bpl": 6, "spl": 7}
_HIGH8 = {"ah": 0, "bh": 1, "ch": 2, "dh": 3}
_LAYOUT_DIRECTIVES = frozenset({
    ".text", ".globl", ".global", ".type", ".size", ".p2align", ".align", ".balign", ".file", ".ident",
    ".section", ".previous", ".hidden", ".local", ".weak", ".intel_syntax", ".att_syntax", ".code64", ".loc",
})
_FORBIDDEN = re.compile(r"^\s*(call[qlw]?|syscall|sysenter|int[0-9]?|into|hlt|lcall|ljmp)\b", re.IGNORECASE)
_RET = re.compile(r"^(\s*)(retq|ret|retl|repz\s+retq?|rep\s+retq?)\b(\s*\$?\w*)?", re.IGNORECASE)
_LABEL = re.compile(r"^\s*([.\w$@]+):")


class NotRunnable(Exception):
    """A snippet the harness cannot run; the message says why."""


@dataclass(frozen=True)
class Register:
    """A register the harness can print: which slot, and which bits of it."""

    name: str
    slot: int  # 0-15: general-purpose; 16-31: xmm0-15
    bits: int  # 8, 16, 32, 64, 128
    shift: int = 0  # 8 for %ah-style registers


def register(name: str) -> Register:
    """The register named ``%rax``, ``%r10d``, ``%ah``, ``%xmm3`` ... (NotRunnable for others)."""
    bare = name.lower().lstrip("%")
    if bare in GPRS:
        return Register(bare, GPRS.index(bare), 64)
    if bare in _LEGACY32:
        return Register(bare, _LEGACY32[bare], 32)
    if bare in _LEGACY16:
        return Register(bare, _LEGACY16[bare], 16)
    if bare in _LEGACY8:
        return Register(bare, _LEGACY8[bare], 8)
    if bare in _HIGH8:
        return Register(bare, _HIGH8[bare], 8, shift=8)
    match = re.fullmatch(r"r(8|9|1[0-5])([dwb]?)", bare)
    if match:
        return Register(bare, 8 + int(match.group(1)) - 8, {"": 64, "d": 32, "w": 16, "b": 8}[match.group(2)])
    match = re.fullmatch(r"xmm([0-9]|1[0-5])", bare)
    if match:
        return Register(bare, 16 + int(match.group(1)), 128)
    raise NotRunnable(f"register %{bare} is not one the harness sets and reads")


def _clean_snippet(code: str, tag: str) -> list[str]:
    """The snippet's instruction lines: layout directives dropped, labels made local and unique, each
    ``ret`` a jump to the end (NotRunnable for what cannot run here)."""
    lines: list[str] = []
    labels: list[str] = []
    for raw in code.replace("\r", "").split("\n"):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        label = _LABEL.match(line)
        rest = line[label.end():].strip() if label else line.strip()
        if label:
            labels.append(label.group(1))
        if rest.startswith("."):
            directive = rest.split()[0].rstrip(",").lower()
            if directive not in _LAYOUT_DIRECTIVES:
                raise NotRunnable(f"directive {directive} is not supported in a snippet")
            rest = ""
        if rest and _FORBIDDEN.match(rest):
            raise NotRunnable(f"the snippet calls out ({rest.split()[0]}): it cannot run in the harness")
        if re.search(r"%(ymm|zmm|[cdefgs]s\b|cr\d|dr\d)", rest, re.IGNORECASE):
            raise NotRunnable(f"`{rest}` uses a register the harness does not set")
        ret = _RET.match(rest)
        if ret:
            rest = f"jmp .Ldv{tag}_end"
        lines.append((f"{label.group(1)}: " if label else "") + rest)
    if not any(_LABEL.sub("", line).strip() for line in lines):
        raise NotRunnable("the snippet has no instructions")
    renamed = []
    for line in lines:
        for number, name in enumerate(labels):
            line = re.sub(rf"(?<![\w.$@]){re.escape(name)}(?![\w.$@])", f".Ldv{tag}_{number}", line)
        renamed.append(line)
    return renamed


def _c_string(line: str) -> str:
    return '"' + line.replace("\\", "\\\\").replace('"', '\\"') + '\\n"'


def _print_register(reg: Register) -> str:
    if reg.bits == 128:
        slot = reg.slot - 16
        return (f'    printf("%s %016llx %016llx\\n", "{reg.name}", (unsigned long long)dv_out.xmm[{slot}][1], '
                f"(unsigned long long)dv_out.xmm[{slot}][0]);")
    mask = "0xffffffffffffffffULL" if reg.bits == 64 else f"0x{(1 << reg.bits) - 1:x}ULL"
    return (f'    printf("%s %llx\\n", "{reg.name}", '
            f"(unsigned long long)((dv_out.gpr[{reg.slot}] >> {reg.shift}) & {mask}));")


def harness_source(snippet: str, live_out: tuple[str, ...], tag: str = "1") -> str:
    """The C harness that runs ``snippet`` and prints ``live_out`` (NotRunnable when it cannot)."""
    if not live_out:
        raise NotRunnable("no live-out registers to compare")
    outputs = [register(name) for name in live_out]
    body = _clean_snippet(snippet, tag)
    loads = [f"movq dv_in+{8 * i}(%rip), %{name}" for i, name in enumerate(GPRS) if name != "rsp"]
    loads += [f"movdqu dv_in+{128 + 16 * i}(%rip), %xmm{i}" for i in range(16)]
    stores = [f"movq %{name}, dv_out+{8 * i}(%rip)" for i, name in enumerate(GPRS) if name != "rsp"]
    stores += [f"movdqu %xmm{i}, dv_out+{128 + 16 * i}(%rip)" for i in range(16)]
    assembly = [
        ".text", ".globl dv_snippet", "dv_snippet:",
        "pushq %rbx", "pushq %rbp", "pushq %r12", "pushq %r13", "pushq %r14", "pushq %r15",
        "movq %rsp, dv_saved_rsp(%rip)", "movq dv_stack_top(%rip), %rsp",
        *loads, *body, f".Ldv{tag}_end:", *stores,
        "movq dv_saved_rsp(%rip), %rsp",
        "popq %r15", "popq %r14", "popq %r13", "popq %r12", "popq %rbp", "popq %rbx", "cld", "ret",
    ]
    asm_block = "\n".join(f"    {_c_string(line)}" for line in assembly)
    prints = "\n".join(_print_register(reg) for reg in outputs)
    return f"""/* divergent: an EquiBench x86-64 snippet in a harness (generated) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct {{ uint64_t gpr[16]; uint64_t xmm[16][2]; }} dv_regs;
dv_regs dv_in, dv_out;
uint64_t dv_saved_rsp, dv_stack_top;
void dv_snippet(void);

__asm__(
{asm_block}
);

static uint64_t dv_state;
static uint64_t dv_next(void) {{
    uint64_t z = (dv_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}}

static int dv_read(uint64_t *value) {{
    char token[64];
    if (scanf("%63s", token) != 1) return 0;
    *value = strtoull(token, NULL, 0);
    return 1;
}}

int main(void) {{
    const uint64_t base = {ARENA_BASE:#x}ULL, size = {ARENA_BYTES:#x}ULL;
    uint64_t seed, i;
    uint64_t *arena = mmap((void *)base, size, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (arena == MAP_FAILED || (uint64_t)arena != base) {{ fputs("arena not mapped\\n", stderr); return 99; }}
    if (!dv_read(&seed)) {{ fputs("no seed\\n", stderr); return 98; }}
    for (i = 0; i < 16; i++) if (!dv_read(&dv_in.gpr[i])) {{ fputs("short input\\n", stderr); return 98; }}
    for (i = 0; i < 16; i++) {{
        if (!dv_read(&dv_in.xmm[i][0]) || !dv_read(&dv_in.xmm[i][1])) {{ fputs("short input\\n", stderr); return 98; }}
    }}
    dv_state = seed;
    for (i = 0; i < size / 8; i++) {{
        uint64_t r = dv_next();
        switch (r & 3) {{
            case 0: arena[i] = 0; break;
            case 1: arena[i] = base + 8 * ((r >> 8) % (size / 8)); break;
            case 2: arena[i] = (r >> 8) % 64; break;
            default: arena[i] = r; break;
        }}
    }}
    dv_stack_top = base + {STACK_OFFSET:#x}ULL;
    dv_snippet();
{prints}
    return 0;
}}
"""


_SPECIAL = (0, 1, 2, 3, 7, 8, 31, 32, 63, 64, 255, 256, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000,
            0xFFFFFFFF, 0x100000000, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF,
            0xFFFFFFFFFFFFFFFE, 0xAAAAAAAAAAAAAAAA, 0x5555555555555555)


def _value(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(_SPECIAL)
    if roll < 0.55:
        return rng.randrange(-64, 65) % (1 << 64)
    if roll < 0.75:
        return ARENA_BASE + 8 * rng.randrange(ARENA_BYTES // 8)
    return rng.getrandbits(64)


def register_inputs(def_in: tuple[str, ...], count: int, seed: int) -> list[str]:
    """``count`` harness inputs: live-in registers (all of them when ``def_in`` names none) varied
    over boundary values, small numbers, arena pointers and random words; the others random."""
    rng = random.Random(f"x86/{seed}")
    live = {register(name).slot for name in def_in if not name.lower().lstrip("%").startswith("xmm")} \
        if def_in else set(range(16))
    inputs = []
    for _ in range(count):
        gprs = [_value(rng) if slot in live else rng.getrandbits(64) for slot in range(16)]
        xmm = [_value(rng) for _ in range(32)]
        inputs.append(f"{rng.getrandbits(63)}\n{' '.join(map(str, gprs))}\n{' '.join(map(str, xmm))}\n")
    return inputs


def execute_x86(pair: Pair, settings: object) -> object:
    """Judge an x86-64 pair (see the module docstring)."""
    from divergent.bench.equibench.exec_programs import compare_on_inputs
    from divergent.bench.equibench.verdicts import ExecutionSettings, not_executable

    assert isinstance(settings, ExecutionSettings)
    try:
        harnesses = (harness_source(pair.program_1, pair.live_out, "1"),
                     harness_source(pair.program_2, pair.live_out, "2"))
        inputs = register_inputs(pair.def_in, settings.x86_inputs, settings.seed)
    except NotRunnable as error:
        return not_executable(str(error))
    return compare_on_inputs(harnesses, "c", inputs, settings, what="register values")
