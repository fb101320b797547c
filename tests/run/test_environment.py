"""The command's environment: an allow-list, a prefix, or everything, never `TOOLGUARD_*`."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolguard.run.environment import DEFAULT_NAMES, INHERIT, allowed, without_toolguard
from toolguard.run.policy import RunPolicy

NAMES = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True),
    st.sampled_from(["TOOLGUARD_AUDIT_KEY", "TOOLGUARD_", "TOOLGUARD_X", "LC_ALL", "PATH"]),
)
ENVIRONS = st.dictionaries(NAMES, st.text(max_size=4), max_size=12)
LISTS = st.lists(st.one_of(NAMES, NAMES.map(lambda name: name + "*"), st.just("TOOL*")), max_size=6)
POLICIES = st.one_of(st.just(INHERIT), st.just(DEFAULT_NAMES), LISTS.map(tuple)).map(
    lambda env: RunPolicy(env=env)
)


@given(environ=ENVIRONS, policy=POLICIES)
def test_toolguard_variables_never_pass(environ: dict[str, str], policy: RunPolicy) -> None:
    """Whatever the contract allows, no TOOLGUARD_* variable reaches the command."""
    passed = policy.environment(environ)
    assert not [name for name in passed if name.startswith("TOOLGUARD_")]
    assert passed.items() <= environ.items()


@given(environ=ENVIRONS, names=LISTS)
def test_a_list_passes_its_names_and_prefixes(environ: dict[str, str], names: list[str]) -> None:
    """A name passes itself; `PREFIX*` passes every variable it begins; nothing else passes."""
    passed = allowed(environ, names)
    for name in without_toolguard(environ):
        wanted = name in names or any(
            entry.endswith("*") and name.startswith(entry[:-1]) for entry in names
        )
        assert (name in passed) is wanted


def test_default_list_is_what_a_shell_and_ssh_need() -> None:
    """The default passes PATH, HOME, locale, ssh and Kerberos; not cloud keys, not toolguard's."""
    environ = {
        "PATH": "/bin",
        "HOME": "/h",
        "LC_MESSAGES": "C",
        "LANG": "C.UTF-8",
        "SSH_AUTH_SOCK": "/s",
        "KRB5CCNAME": "FILE:/k",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "GITHUB_TOKEN": "secret",
        "TOOLGUARD_AUDIT_KEY": "/key",
        "LD_PRELOAD": "/evil.so",
    }
    assert set(RunPolicy().environment(environ)) == {
        "PATH",
        "HOME",
        "LC_MESSAGES",
        "LANG",
        "SSH_AUTH_SOCK",
        "KRB5CCNAME",
    }


def test_without_toolguard_keeps_everything_else() -> None:
    """The reusable filter drops exactly the TOOLGUARD_* names, case as written."""
    environ = {"TOOLGUARD_AUDIT_LOG": "x", "toolguard_lower": "y", "TOOLGUARDIAN": "z", "A": "b"}
    assert without_toolguard(environ) == {"toolguard_lower": "y", "TOOLGUARDIAN": "z", "A": "b"}
