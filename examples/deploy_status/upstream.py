"""A stand-in for the article's deployment service, for `toolguard run`.

- no flag: the answer (response.json);
- `--broken`: the drifted shape the article warns about;
- `--not-found`: the service's error document for an unknown deployment;
- `--banner`: a login banner printed before the JSON, as some hosts do;
- `--fail N`: no answer, exit status N (255 is ssh's "connection failed").
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(args: list[str]) -> int:
    """Print what the flag asks for; return the exit status."""
    if args[:1] == ["--fail"]:
        print("deploy-status: backend unreachable", file=sys.stderr)
        return int(args[1])
    if args == ["--not-found"]:
        sys.stdout.write('{"error": "not_found"}\n')
        return 0
    answer = HERE / ("fixtures/reject/drifted.json" if args == ["--broken"] else "response.json")
    if args == ["--banner"]:
        sys.stdout.write("Welcome to build-host. Authorised use only.\n")
    sys.stdout.write(answer.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
