# Sourced by scripts/serve and scripts/calpress. calpress_install <project folder>: make sure the
# project's .venv holds calpress installed from its pyproject.toml. pip runs only when the venv or
# its calpress command is missing, or pyproject.toml changed since the last install (the sha256
# kept in .venv/.calpress-install-stamp): the code itself is an editable install, so changes to it
# need no reinstall. pip's output goes to stderr, leaving stdout to the command.

calpress_sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1
    fi
}

calpress_install() {
    local project=$1
    local venv="$project/.venv"
    local stamp="$venv/.calpress-install-stamp"
    local wanted
    wanted=$(calpress_sha256 "$project/pyproject.toml")
    if [ -x "$venv/bin/calpress" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
        return 0
    fi
    if [ ! -x "$venv/bin/python" ]; then
        "${PYTHON:-python3}" -m venv "$venv" >&2
    fi
    (cd "$project" && "$venv/bin/python" -m pip install -q -e .) >&2
    printf '%s\n' "$wanted" >"$stamp"
}
