# Shared by scripts/run, scripts/test and scripts/bench: install what is missing, configure, build.
# Sourced, not executed.

COH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
COH_BUILD_DIR=${COH_BUILD_DIR:-$COH_ROOT/build}

# Debian packages the build needs. Qt joins the list when the desktop app (ui/) is part of the tree.
# Installs use --no-install-recommends, so every package a CMake config needs is named here, even when it is
# only a Recommends of another: Qt6Charts' config needs Qt6OpenGL (libqt6opengl6-dev, a Recommends of
# qt6-base-dev), and Qt6Gui's config looks for XKB (libxkbcommon-dev) and warns without it.
# ../shared/tools/check-fresh-deps BUILD_DIR checks this list against what a configured build found.
coh_packages() {
    echo cmake ninja-build g++ pkg-config \
        libboost-dev libboost-graph-dev nlohmann-json3-dev libfmt-dev libcli11-dev \
        libsqlite3-dev libsqlitecpp-dev libgtest-dev libbenchmark-dev rumur libpagmo-dev \
        libboost-mpi-dev libopenmpi-dev openmpi-bin libisal-dev
    if [ -f "$COH_ROOT/ui/CMakeLists.txt" ]; then
        # poppler-utils: the report tests read the PDF back with pdftotext and pdfinfo.
        echo qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev libxkbcommon-dev xvfb xauth \
            poppler-utils
    fi
}

coh_install_deps() {
    coh_install_packages $(coh_packages)
}

# Installs the named Debian packages that are not installed yet (without Recommends).
coh_install_packages() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing missing packages: ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Configures once (Release, Ninja), then builds. Extra arguments go to cmake at configure time.
coh_build() {
    local ui=ON
    [ -f "$COH_ROOT/ui/CMakeLists.txt" ] || ui=OFF
    if [ ! -f "$COH_BUILD_DIR/build.ninja" ]; then
        cmake -S "$COH_ROOT" -B "$COH_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOH_BUILD_UI=$ui "$@" >&2
    fi
    cmake --build "$COH_BUILD_DIR" -j "$(nproc)" >&2
}
