"""The environment a command toolguard starts is given: an allow-list, never toolguard's own.

A command's environment is evidence it may echo: what it writes on stderr reaches the
operator's diagnostics and the audit log. So `toolguard run` passes only what a shell command
and ssh need unless the contract lists other names (`[run] env = [...]`) or explicitly asks
for everything (`[run] env = "*"`). Whatever the mode, `TOOLGUARD_*` (toolguard's settings,
its audit key's path among them) never passes: `without_toolguard` is that filter, for every
command toolguard starts.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Final, Literal, TypeAlias

    Inherit: TypeAlias = Literal["*"]

INHERIT: Final = "*"
OWN_PREFIX: Final = "TOOLGUARD_"
# What a shell command and ssh need: where programs are, who and where the user is, the
# locale and time zone, the terminal, temporary files, and the ssh agent and Kerberos tickets.
DEFAULT_NAMES: Final = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_*",
    "TZ",
    "TERM",
    "TMPDIR",
    "SSH_AUTH_SOCK",
    "KRB5CCNAME",
)


def without_toolguard(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` less every `TOOLGUARD_*` variable: toolguard's settings stay with toolguard."""
    return {name: value for name, value in environ.items() if not name.startswith(OWN_PREFIX)}


def allowed(environ: Mapping[str, str], names: Iterable[str]) -> dict[str, str]:
    """The variables of `environ` that `names` allow, less `TOOLGUARD_*`.

    A name allows itself; a name ending in `*` (`LC_*`) allows every variable it begins.
    """
    listed = tuple(names)
    exact = {name for name in listed if not name.endswith("*")}
    prefixes = tuple(name[:-1] for name in listed if name.endswith("*"))
    return {
        name: value
        for name, value in without_toolguard(environ).items()
        if name in exact or name.startswith(prefixes)
    }


def is_own(name: str) -> bool:
    """Whether an allow-list entry could only ever name toolguard's own variables."""
    return name.startswith(OWN_PREFIX)
