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

# calpress_vendor <project folder>: the browser libraries the workspace serves (flatpickr, Tom
# Select, Dropzone, the block editor with React), installed with npm ci from calpress/admin/vendor/package-lock.json into its
# node_modules (ignored by git), again only when the lock file changed. Debian's npm is installed
# when missing and this runs as root; without npm the workspace works without them (its forms
# need no script) and a warning says so.
calpress_vendor() {
    local vendor="$1/calpress/admin/vendor"
    local stamp="$vendor/node_modules/.calpress-vendor-stamp"
    local wanted
    [ -f "$vendor/package-lock.json" ] || return 0  # a tree without the workspace's libraries
    wanted=$(calpress_sha256 "$vendor/package-lock.json")
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
        return 0
    fi
    if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm) >&2 || true
    fi
    if ! command -v npm >/dev/null 2>&1; then
        echo "warning: npm is missing: the workspace runs without its date pickers, searchable selects and upload widget" >&2
        return 0
    fi
    if npm ci --prefix "$vendor" --silent --no-audit --no-fund --ignore-scripts >&2; then
        printf '%s\n' "$wanted" >"$stamp"
    else
        echo "warning: npm ci failed in $vendor: the workspace runs without its browser libraries" >&2
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
