"""Who first imported a module, in a probe run by a fresh interpreter.

`_json`'s scanner builds its syntax errors from `json.decoder`: CPython 3.11 looks for it only
among the imported modules (`json_codec` then raises a plain ValueError), 3.12 on imports it.
So a test that keeps `json` off a path asks who loaded it first: nobody on 3.11, that call of
the scanner on 3.12 and later, and never any other code.
"""

from __future__ import annotations

from pathlib import Path

from toolguard import json_codec

# NOTE: imports only `sys`, which every interpreter has loaded before it runs a line.
_WATCH = """
import sys as _sys
FIRST_IMPORTERS = []


class _FirstImporter:
    def find_spec(self, name, path=None, target=None):
        if name in {names!r}:
            frame = _sys._getframe(1)
            while frame is not None and frame.f_code.co_filename.startswith("<frozen "):
                frame = frame.f_back  # importlib's own frames
            where = ("", 0) if frame is None else (frame.f_code.co_filename, frame.f_lineno)
            FIRST_IMPORTERS.append((name, *where))
        return None


_sys.meta_path.insert(0, _FirstImporter())
"""


def watching(*names: str) -> str:
    """Source to run first in a probe: `FIRST_IMPORTERS` then lists (module, file, line) for
    the first import of each of `names` (empty, and no finder, without names)."""
    return _WATCH.format(names=frozenset(names)) if names else "FIRST_IMPORTERS = []\n"


def by_the_scanner(importer: tuple[str, str, int]) -> bool:
    """Whether an importer from `FIRST_IMPORTERS` is `json_codec`'s call of `_json`'s scanner."""
    _, file, line = importer
    source = Path(json_codec.__file__)
    if not file or Path(file).resolve() != source.resolve():
        return False
    return "self._scan(" in source.read_text(encoding="utf-8").splitlines()[line - 1]
