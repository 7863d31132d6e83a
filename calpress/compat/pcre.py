"""PCRE patterns, as PHP's ``preg_match()`` runs them, translated to Python's ``re``.

The schema engine's ``pattern`` and ``patternProperties`` keywords hold PCRE patterns that the
reference runs as ``preg_match('#' . str_replace('#', '\\#', $pattern) . '#u', $subject)``
(rest_validate_json_schema_pattern); :func:`pattern_matches` does the same here. Each pattern is
translated and compiled once, then cached.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from .php import php_str

__all__ = ["pattern_matches"]

_PATTERN_CACHE: dict[str, re.Pattern[str] | None] = {}
_PATTERN_CACHE_MAX = 2048

# PCRE escapes with no Python equivalent, as text usable outside / inside a character class.
_H_CLASS = "\\t \\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000"
_V_CLASS = "\\n\\x0b\\x0c\\r\\x85\\u2028\\u2029"
_POSIX_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": "\\s", "word": "\\w", "xdigit": "0-9A-Fa-f", "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f", "print": "\\x20-\\x7e", "graph": "\\x21-\\x7e",
    "punct": "!-/:-@\\[-`{-~", "ascii": "\\x00-\\x7f",
}
_PROPS_OUTSIDE = {"L": "[^\\W\\d_]", "N": "\\d", "Nd": "\\d"}
_NEG_PROPS_OUTSIDE = {"L": "[\\W\\d_]", "N": "\\D", "Nd": "\\D"}
_PY_FLAGS = set("imsx")


def _translate_pcre(p: str) -> str:
    """Translate a PCRE pattern (as the reference runs it, with the ``u`` modifier) to Python ``re``.

    Handles the syntax that differs: ``(?<name>``/``(?'name'`` groups and ``\\k`` references,
    ``\\z``/``\\Z``, ``\\x{hhhh}``, ``\\h``/``\\v``/``\\R``/``\\N``/``\\e``, ``\\Q..\\E``, POSIX
    classes, a few ``\\p{..}`` properties and option settings such as ``(?i)`` in mid-pattern
    (turned into scoped groups). Anything else unsupported raises ValueError.
    """
    out: list[str] = []
    n = len(p)
    i = 0
    in_class = False
    # One entry per open group (plus the top level): the inline-flag scopes opened in it.
    scopes: list[list[str]] = [[]]

    def hex_escape(code: int) -> str:
        return f"\\U{code:08x}" if code > 0xFFFF else f"\\u{code:04x}"

    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise ValueError("trailing backslash")
            d = p[i + 1]
            if d == "Q":
                end = p.find("\\E", i + 2)
                literal = p[i + 2:] if end < 0 else p[i + 2:end]
                out.append("".join(hex_escape(ord(ch)) for ch in literal) if in_class else re.escape(literal))
                i = n if end < 0 else end + 2
                continue
            if d == "E":
                i += 2
                continue
            if d == "x" and i + 2 < n and p[i + 2] == "{":
                end = p.find("}", i + 3)
                if end < 0:
                    raise ValueError("bad \\x{}")
                out.append(hex_escape(int(p[i + 3:end], 16)))
                i = end + 1
                continue
            if d in "pP":
                if i + 2 < n and p[i + 2] == "{":
                    end = p.find("}", i + 3)
                    if end < 0:
                        raise ValueError("bad \\p{}")
                    name = p[i + 3:end]
                    i = end + 1
                else:
                    name = p[i + 2:i + 3]
                    i += 3
                negate = d == "P"
                if name.startswith("^"):
                    negate = not negate
                    name = name[1:]
                if in_class:
                    if name != "Nd":
                        raise ValueError("unsupported property in class")
                    out.append("\\D" if negate else "\\d")
                else:
                    table = _NEG_PROPS_OUTSIDE if negate else _PROPS_OUTSIDE
                    if name not in table:
                        raise ValueError("unsupported property")
                    out.append(table[name])
                continue
            if d == "k" and i + 2 < n and p[i + 2] in "<{'":
                close = {"<": ">", "{": "}", "'": "'"}[p[i + 2]]
                end = p.find(close, i + 3)
                if end < 0:
                    raise ValueError("bad \\k")
                out.append(f"(?P={p[i + 3:end]})")
                i = end + 1
                continue
            if d == "g":
                m = re.match(r"\\g(?:\{(\d+)\}|(\d+))", p[i:])
                if not m:
                    raise ValueError("unsupported \\g")
                out.append("\\" + (m.group(1) or m.group(2)))
                i += m.end()
                continue
            two = p[i:i + 2]
            if in_class:
                replacement = {"\\h": _H_CLASS, "\\v": _V_CLASS, "\\e": "\\x1b"}.get(two)
                if two in ("\\H", "\\V", "\\R", "\\N", "\\z", "\\Z", "\\A", "\\K", "\\G"):
                    raise ValueError("unsupported escape in class")
            else:
                replacement = {
                    "\\z": "\\Z",
                    "\\Z": "(?=\\n?\\Z)",
                    "\\h": f"[{_H_CLASS}]",
                    "\\H": f"[^{_H_CLASS}]",
                    "\\v": f"[{_V_CLASS}]",
                    "\\V": f"[^{_V_CLASS}]",
                    "\\R": f"(?:\\r\\n|[{_V_CLASS}])",
                    "\\e": "\\x1b",
                }.get(two)
                if two == "\\N" and not (i + 2 < n and p[i + 2] == "{"):
                    replacement = "[^\\n]"
                if two in ("\\K", "\\G", "\\X", "\\C"):
                    raise ValueError("unsupported escape")
            out.append(replacement if replacement is not None else two)
            i += 2
            continue

        if in_class:
            if c == "]":
                in_class = False
                out.append("]")
            elif c == "[" and p.startswith("[:", i):
                end = p.find(":]", i + 2)
                name = p[i + 2:end] if end > 0 else ""
                if name not in _POSIX_CLASSES:
                    raise ValueError("unsupported POSIX class")
                out.append(_POSIX_CLASSES[name])
                i = end + 2
                continue
            elif c in "[&~|":
                out.append("\\" + c)  # literal in PCRE; set-operation syntax to Python's parser
            else:
                out.append(c)
            i += 1
            continue

        if c == "[":
            out.append("[")
            i += 1
            if i < n and p[i] == "^":
                out.append("^")
                i += 1
            if i < n and p[i] == "]":  # a leading "]" is a literal
                out.append("\\]")
                i += 1
            in_class = True
            continue

        if c == "(":
            if p.startswith("(?<", i) and i + 3 < n and p[i + 3] not in "=!":
                end = p.find(">", i + 3)
                if end < 0:
                    raise ValueError("bad group name")
                out.append(f"(?P<{p[i + 3:end]}>")
                i = end + 1
                scopes.append([])
                continue
            if p.startswith("(?'", i):
                end = p.find("'", i + 3)
                if end < 0:
                    raise ValueError("bad group name")
                out.append(f"(?P<{p[i + 3:end]}>")
                i = end + 1
                scopes.append([])
                continue
            m = re.match(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])", p[i:])
            if m and (m.group(1) or m.group(2) is not None):
                on, off = m.group(1), m.group(2) or ""
                if not set(on) <= _PY_FLAGS or not set(off) <= _PY_FLAGS:
                    raise ValueError("unsupported option")
                flags = on + (f"-{off}" if off else "")
                if m.group(3) == ":":
                    out.append(f"(?{flags}:")
                    scopes.append([])
                else:
                    # (?i) applies to the rest of the enclosing group: open a scoped group
                    # that is closed (and reopened after each "|") at that group's level.
                    out.append(f"(?{flags}:")
                    scopes[-1].append(flags)
                i += m.end()
                continue
            out.append("(")
            scopes.append([])
            i += 1
            continue

        if c == ")":
            if len(scopes) == 1:
                raise ValueError("unbalanced parenthesis")
            out.append(")" * len(scopes.pop()))
            out.append(")")
            i += 1
            continue

        if c == "|" and scopes[-1]:
            opened = scopes[-1]
            out.append(")" * len(opened) + "|" + "".join(f"(?{f}:" for f in opened))
            i += 1
            continue

        out.append(c)
        i += 1

    if in_class or len(scopes) != 1:
        raise ValueError("unterminated class or group")
    out.append(")" * len(scopes[0]))
    return "".join(out)


def _has_stray_delimiter(pattern: str) -> bool:
    """Whether the reference's ``'#' . str_replace('#', '\\#', $p) . '#u'`` ends early.

    A "#" preceded by an escaped backslash (``\\\\#`` after the replacement) closes the
    delimiters early and PHP rejects the pattern; a trailing backslash escapes the closing one.
    """
    i = 0
    n = len(pattern)
    while i < n:
        if pattern[i] == "\\" and i + 1 < n:
            i += 2
            continue
        if pattern[i] == "\\":
            return True  # escapes the closing delimiter
        if pattern[i] == "#":
            return True
        i += 1
    return False


def _compile_schema_pattern(pattern: str) -> re.Pattern[str] | None:
    escaped = pattern.replace("#", "\\#")
    if _has_stray_delimiter(escaped):
        return None
    try:
        translated = _translate_pcre(escaped)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return re.compile(translated)
    except (ValueError, re.error, OverflowError):
        return None  # preg_match() fails on an invalid pattern: nothing matches


def pattern_matches(pattern: str, subject: Any) -> bool:
    """rest_validate_json_schema_pattern(): an unanchored PCRE search (compiled once per pattern)."""
    try:
        compiled = _PATTERN_CACHE[pattern]
    except KeyError:
        compiled = _compile_schema_pattern(pattern)
        if len(_PATTERN_CACHE) >= _PATTERN_CACHE_MAX:
            _PATTERN_CACHE.clear()
        _PATTERN_CACHE[pattern] = compiled
    if compiled is None:
        return False
    return compiled.search(subject if isinstance(subject, str) else php_str(subject)) is not None


