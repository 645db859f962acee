"""A lexical check of C++/CUDA sources for the dry run, on a host with no nvcc, no torch headers and
no GPU: what can be told wrong without preprocessing or compiling, and nothing that a source which
compiles could fail.

It reads a source as the compiler's first phases do (line splices, comments, string and character
literals with their prefixes, raw strings, digit separators, preprocessor lines) and reports the
first of: a /* comment, raw string or (outside conditional groups) a string or character literal
that is never closed; #if without #endif, #else/#elif/#endif without #if; a ( [ { that is never
closed or a ) ] } that closes nothing or the wrong bracket. Brackets are followed through each
branch of a conditional group; `#if 0` branches are skipped; the bracket check is left out for a
file when its branches leave different brackets open, when a skipped-looking branch holds an
unclosed literal, and for a whole bundle when a #define in it has unbalanced brackets (a macro may
open what the code closes). Native compilation happens on the worker."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

NATIVE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hh", ".hpp", ".hxx", ".inl")

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_STRING_PREFIXES = frozenset({"L", "u", "U", "u8"})
_RAW_PREFIXES = frozenset({"R", "LR", "uR", "UR", "u8R"})
_IDENT = re.compile(r"[A-Za-z_$\x80-\U0010ffff][A-Za-z0-9_$\x80-\U0010ffff]*")
_PP_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[A-Za-z0-9_]|[A-Za-z0-9_.])*")
_DIRECTIVE = re.compile(r"#[ \t]*([A-Za-z_]*)")
_RAW_DELIMITER = re.compile(r'([^ ()\\\t\v\f\n]{0,16})\(')


def is_native(path: str) -> bool:
    return path.lower().endswith(NATIVE_SUFFIXES)


def defines_unbalanced_brackets(text: str) -> bool:
    """Whether a #define of the source has unbalanced brackets (then no source of the bundle can have
    its brackets checked: the macro may open what the code closes)."""
    return _scan(text).unbalanced_define


def native_syntax_error(path: str, text: str, check_brackets: bool = True) -> str | None:
    """The first lexical error of a C++/CUDA source as "path:line: message", or None."""
    scan = _scan(text)
    if scan.error is not None:
        line, message = scan.error
        return f"{path}:{line}: {message}"
    if check_brackets and scan.bracket_error is not None:
        line, message = scan.bracket_error
        return f"{path}:{line}: {message}"
    return None


@dataclass
class _Group:
    name: str  # if, ifdef or ifndef
    line: int
    entry: tuple[tuple[str, int], ...]  # the brackets open when the group began
    ends: list[tuple[tuple[str, int], ...]] = field(default_factory=list)  # each finished branch's
    has_else: bool = False
    dead: bool = False  # the current branch is `#if 0`


@dataclass
class _Scan:
    error: tuple[int, str] | None = None  # certain: a compiler would refuse the source
    bracket_error: tuple[int, str] | None = None
    brackets_unreliable: bool = False
    unbalanced_define: bool = False


def _spliced(text: str) -> tuple[str, list[int]]:
    """The text with line splices (backslash-newline) removed, and the sorted keys from which the
    original line of an index is bisect_left(keys, index) + 1."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    pieces = text.split("\\\n")
    out, keys, offset = [], [], 0
    for n, piece in enumerate(pieces):
        if n:
            keys.append(offset - 1)
        keys.extend(offset + m.start() for m in re.finditer("\n", piece))
        out.append(piece)
        offset += len(piece)
    return "".join(out), keys


def _scan(text: str) -> _Scan:
    s, keys = _spliced(text)
    result = _Scan()
    stack: list[tuple[str, int]] = []
    groups: list[_Group] = []
    line_start, directive, define_depth, directive_name = True, False, 0, ""
    dead_groups = 0  # of `groups`, those in an `#if 0` branch now
    i, n = 0, len(s)

    def line(at: int) -> int:
        return bisect_left(keys, at) + 1

    def bracket_problem(at: int, message: str) -> None:
        if groups:  # a branch the compiler may skip: say nothing, check nothing further
            result.brackets_unreliable = True
        elif result.bracket_error is None and not result.brackets_unreliable:
            result.bracket_error = (line(at), message)

    def end_directive() -> None:
        nonlocal directive, define_depth
        if directive_name == "define" and define_depth:
            result.unbalanced_define = True
        directive, define_depth = False, 0

    while i < n and result.error is None:
        c = s[i]
        if c == "\n":
            if directive:
                end_directive()
            line_start = True
            i += 1
            continue
        if c in " \t\v\f":
            i += 1
            continue
        if s.startswith("//", i):
            end = s.find("\n", i)
            i = n if end < 0 else end
            continue
        if s.startswith("/*", i):
            end = s.find("*/", i + 2)
            if end < 0:
                result.error = (line(i), "unterminated /* comment")
                break
            i = end + 2
            continue
        if c == "#" and line_start and not directive:
            match = _DIRECTIVE.match(s, i)
            assert match is not None
            directive, directive_name, define_depth = True, match.group(1), 0
            line_start = False
            i = match.end()
            if directive_name in ("error", "warning"):  # free text to the end of the line
                end = s.find("\n", i)
                i = n if end < 0 else end
            elif directive_name in ("if", "ifdef", "ifndef"):
                end = s.find("\n", i)
                rest = s[i:n if end < 0 else end].split("//")[0].split("/*")[0]
                groups.append(_Group(directive_name, line(match.start()), tuple(stack),
                                     dead=directive_name == "if" and rest.strip() == "0"))
                dead_groups += groups[-1].dead
            elif directive_name in ("elif", "else", "elifdef", "elifndef", "endif"):
                if not groups:
                    result.error = (line(match.start()), f"#{directive_name} without #if")
                    break
                group = groups[-1]
                group.ends.append(group.entry if group.dead else tuple(stack))
                dead_groups -= group.dead
                group.dead = False
                if directive_name == "endif":
                    groups.pop()
                    if not group.has_else:
                        group.ends.append(group.entry)  # the branch where no condition holds
                    kinds = {tuple(c for c, _ in end) for end in group.ends}  # lines may differ
                    if len(kinds) > 1 and not dead_groups:
                        result.brackets_unreliable = True
                    stack[:] = list(group.ends[-1])
                else:
                    group.has_else = group.has_else or directive_name == "else"
                    stack[:] = list(group.entry)
            continue
        line_start = False
        dead = dead_groups > 0
        match = _IDENT.match(s, i)
        if match is not None:
            word, i = match.group(), match.end()
            if i < n and s[i] == '"' and word in _RAW_PREFIXES:
                delimiter = _RAW_DELIMITER.match(s, i + 1)
                end = -1 if delimiter is None else s.find(f"){delimiter.group(1)}\"", delimiter.end())
                if end < 0:
                    if not (directive or dead or groups):
                        result.error = (line(i), "unterminated raw string")
                        break
                    result.brackets_unreliable = True
                    end = s.find("\n", i)
                    i = n if end < 0 else end
                    continue
                i = end + len(delimiter.group(1)) + 2
            elif i < n and s[i] in "\"'" and word in _STRING_PREFIXES:
                continue  # the literal is read next round
            continue
        match = _PP_NUMBER.match(s, i)
        if match is not None:
            i = match.end()
            continue
        if c in "\"'":
            j = i + 1
            while j < n and s[j] != c and s[j] != "\n":
                j += 2 if s[j] == "\\" else 1
            if j >= n or s[j] != c:
                if not (directive or dead or groups):
                    what = "\"" if c == '"' else "'"
                    result.error = (line(i), f"missing terminating {what} character")
                    break
                if not (directive or dead):
                    result.brackets_unreliable = True
                i = min(j, n)
                continue
            i = j + 1
            continue
        if c in _OPENERS or c in _CLOSERS:
            if directive:
                define_depth += 1 if c in _OPENERS else -1
            elif not dead and c in _OPENERS:
                stack.append((c, line(i)))
            elif not dead:
                if not stack:
                    bracket_problem(i, f"'{c}' closes nothing")
                elif stack[-1][0] != _CLOSERS[c]:
                    opener, opened = stack[-1]
                    bracket_problem(i, f"'{c}' does not close the '{opener}' opened on line {opened}")
                    stack.pop()
                else:
                    stack.pop()
        i += 1
    if directive:
        end_directive()
    if result.error is None and groups:
        result.error = (groups[-1].line, f"#{groups[-1].name} without #endif")
    if result.bracket_error is None and stack and not result.brackets_unreliable:
        opener, opened = stack[-1]
        result.bracket_error = (opened, f"'{opener}' is never closed")
    return result
