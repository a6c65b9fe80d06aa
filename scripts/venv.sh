# Sourced by ./run and ./test: makes .venv with the locked dependencies, once per lock change.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"

find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
        [ -n "$candidate" ] || continue
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    echo "Strategium needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)." >&2
    return 1
}

stamp="$venv/.strategium-lock"
wanted="$(cat "$root/requirements.lock" "$root/pyproject.toml" | cksum)"
if [ ! -x "$venv/bin/python" ]; then
    python="$(find_python)"
    echo "Setting up $venv with $("$python" --version) ..." >&2
    if ! "$python" -m venv "$venv"; then
        echo "Could not create a virtual environment. On Debian/Ubuntu: apt-get install python3-venv" >&2
        exit 1
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    # In place (no --clear): another shell may be using this environment right now.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        -r "$root/requirements.lock" -e "$root[dev]"
    echo "$wanted" >"$stamp"
fi
export PATH="$venv/bin:$PATH"
cd "$root"
