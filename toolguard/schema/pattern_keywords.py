"""`pattern` and `patternProperties` in the generator: patterns run on RE2.

fastjsonschema compiles each pattern with Python's `re` as it generates, and its module builds
`re.compile(...)` objects, whose backtracking lets one hostile string hold a check for hours.
Here the prepared schema's patterns are already RE2 syntax (`regex.py`), and the generated
module holds a `Matcher` for each (`PATTERN`, which `cache.function_of` puts in its globals),
compiled when first used: loading a cached validator imports no regex engine. A plain pattern
(`plain_match.py`) also gets a function of the module, its runs unrolled, which answers for
ASCII text without a call through the `Matcher`: a large document runs it once per string.
"""

from __future__ import annotations

from fastjsonschema.exceptions import JsonSchemaDefinitionException

from toolguard.schema.generator_base import GeneratorBase
from toolguard.schema.plain_match import PlainPattern, plain


class PatternKeywords(GeneratorBase):
    """The keywords that read a pattern, generated for RE2 instead of Python's `re`.

    (`required`, whose check for impossible names runs patterns too, is in `members`.)
    """

    _plain: dict[str, tuple[str, PlainPattern]]  # pattern -> its function's name, its runs

    def generate_pattern(self) -> None:
        """`pattern`: an ECMA-262 search (not anchored) on strings."""
        pattern = self._here["pattern"]
        with (
            self.l("if isinstance({variable}, str):"),
            self.l("if not {}:", self._search(pattern, str(self._variable))),
        ):
            self.exc("{name} must match pattern {}", self.e(pattern), rule="pattern")

    def generate_pattern_properties(self) -> None:
        """`patternProperties`: each member whose name a pattern finds must match its schema."""
        leftover = self._leftover_read()
        patterns = self._here["patternProperties"]
        if not patterns and not leftover:
            return
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            if leftover:
                self.create_variable_keys()
            if not patterns:
                return
            with self.l("for {variable}_key, {variable}_val in {variable}.items():"):
                for pattern, definition in patterns.items():
                    with self.l("if {}:", self._search(pattern, f"{self._variable}_key")):
                        if leftover:
                            with self.l("if {variable}_key in {variable}_keys:"):
                                self.l("{variable}_keys.remove({variable}_key)")
                        # NOTE: `_block`: a subschema may generate nothing (`{}`), and no
                        # removal from the leftover keys need stand in the branch.
                        self._block(
                            definition,
                            f"{self._variable}_val",
                            f"{self._variable_name}.{{{self._variable}_key}}",
                            clear=True,
                        )

    def _search(self, pattern: str, text: str) -> str:
        """The expression that says whether `pattern` matches somewhere in the string `text`.

        A plain pattern (`plain_match.py`) runs on ASCII text as a function of the generated
        module; anything else, and any text beyond ASCII, through its `Matcher`.
        """
        self._compile_regexps[pattern] = pattern
        matcher = f"REGEX_PATTERNS[{pattern!r}].search({text})"
        if pattern not in self._plain:
            runs = plain(pattern)
            if runs is None:
                return matcher
            self._plain[pattern] = (f"PLAIN_{len(self._plain)}", runs)
        name = self._plain[pattern][0]
        return f"({name}({text}) if {text}.isascii() else {matcher})"

    @property
    def global_state_code(self) -> str:
        """The module's head: a `PATTERN` per pattern, then each plain one's function."""
        head = super().global_state_code
        if not self._compile_regexps:
            return head
        if not all(isinstance(value, str) for value in self._compile_regexps.values()):
            raise JsonSchemaDefinitionException("a regex toolguard did not translate")
        entries = "".join(
            f"\n    {pattern!r}: PATTERN({pattern!r})," for pattern in self._compile_regexps
        )
        functions = "".join(
            f"\n\n{runs.function_source(name)}" for name, runs in self._plain.values()
        )
        return f"{head}\nREGEX_PATTERNS = {{{entries}\n}}{functions}"
