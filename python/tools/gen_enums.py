#!/usr/bin/env python3
"""Generate ``bicl/_enums.py`` from the public C headers.

Every ``typedef enum bicl_x { BICL_... = N, ... } bicl_x;`` becomes an ``IntEnum`` named
after the C type in CamelCase (``bicl_unary_op`` -> ``UnaryOp``), its members named
without the common ``BICL_..._`` prefix (``BICL_UNARY_SILU`` -> ``UnaryOp.SILU``);
``*_COUNT_`` sentinels are left out. Integer and string ``#define BICL_*`` constants
become module constants without the ``BICL_`` prefix. The headers are the one place
these numbers live: this script runs at build time (python/CMakeLists.txt), and
python/tests/test_bindings.py compiles the generated names with the C compiler to prove
the values equal the C ones.

usage: gen_enums.py OUT.py HEADER...
"""
from __future__ import annotations

import os
import re
import sys
from typing import Dict, List, Tuple

_ENUM_RE = re.compile(r"typedef\s+enum\s+(bicl_\w+)\s*\{(.*?)\}\s*(bicl_\w+)\s*;", re.S)
_MEMBER_RE = re.compile(r"^\s*(BICL_\w+)\s*=\s*([^,]+?)\s*,?\s*$")
_DEFINE_RE = re.compile(r"^#define\s+(BICL_\w+)\s+(\d+|\"[^\"]*\")\s*$", re.M)


def strip_comments(text: str) -> str:
    """Remove C block and line comments."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def class_name(c_type: str) -> str:
    """``bicl_rope_angle_mode`` -> ``RopeAngleMode``."""
    return "".join(part.capitalize() for part in c_type[len("bicl_"):].split("_"))


def common_prefix(names: List[str]) -> str:
    """The longest common prefix of names, cut after its last underscore."""
    prefix = os.path.commonprefix(names)
    return prefix[: prefix.rfind("_") + 1]


def parse_enums(text: str) -> Dict[str, List[Tuple[str, int]]]:
    """C enum type -> [(C member name, value)], COUNT_ sentinels left out."""
    enums: Dict[str, List[Tuple[str, int]]] = {}
    for match in _ENUM_RE.finditer(strip_comments(text)):
        name, body, alias = match.groups()
        if name != alias:
            raise SystemExit(f"gen_enums: typedef enum {name} named {alias}")
        members = []
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            m = _MEMBER_RE.match(item)
            if not m:
                raise SystemExit(f"gen_enums: {name}: cannot read '{item}' (values must be explicit)")
            member, value = m.groups()
            if not member.endswith("_COUNT_"):
                members.append((member, int(value, 0)))
        enums[name] = members
    return enums


def render(enums: Dict[str, List[Tuple[str, int]]], defines: List[Tuple[str, str]]) -> str:
    """The text of _enums.py."""
    out = [
        '"""bicl\'s C enums and constants. Generated from include/bicl/*.h by',
        'python/tools/gen_enums.py at build time: do not edit."""',
        "from enum import IntEnum",
        "",
        "__all__ = [",
    ]
    out += [f'    "{class_name(n)}",' for n in enums]
    out += [f'    "{d[len("BICL_"):]}",' for d, _ in defines]
    out.append("]")
    for d, v in defines:
        out.append(f"{d[len('BICL_'):]} = {v}")
    for name, members in enums.items():
        prefix = common_prefix([m for m, _ in members])
        out += ["", "", f"class {class_name(name)}(IntEnum):", f'    """C enum {name}."""', ""]
        out += [f"    {m[len(prefix):]} = {v}  # {m}" for m, v in members]
        out += ["", "    @property", "    def c_name(self) -> str:", '        """The C name."""',
                f'        return "{prefix}" + self.name']
    return "\n".join(out) + "\n"


def main(argv: List[str]) -> int:
    """Read the headers given, write the module."""
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    enums: Dict[str, List[Tuple[str, int]]] = {}
    defines: List[Tuple[str, str]] = []
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        enums.update(parse_enums(text))
        defines += _DEFINE_RE.findall(text)
    tmp = argv[1] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(render(enums, defines))
    os.replace(tmp, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
