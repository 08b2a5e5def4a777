#!/usr/bin/env bash
# Installs what Spotter needs to build, once: OpenCV with its contrib ArUco
# module, clang for the OpenCV bindings, pkg-config, V4L for webcams, and
# nasm for libjpeg-turbo's SIMD code (mozjpeg-sys builds it when nasm is there).
# Run by `make run` and `make test`; it does nothing when all is present.
set -euo pipefail

apt_packages=(libopencv-dev clang libclang-dev pkg-config libv4l-dev nasm)
brew_packages=(opencv pkg-config llvm nasm)

if ! command -v cargo >/dev/null 2>&1; then
    echo "Spotter is written in Rust and needs cargo. Install Rust from https://rustup.rs, open a new terminal, then run this again." >&2
    exit 1
fi

case "$(uname -s)" in
Linux)
    if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
        missing=()
        for p in "${apt_packages[@]}"; do
            if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
                missing+=("$p")
            fi
        done
        if ((${#missing[@]} == 0)); then
            exit 0
        fi
        echo "Installing system packages: ${missing[*]}"
        sudo=()
        if [[ $(id -u) -ne 0 ]]; then
            if command -v sudo >/dev/null 2>&1; then
                sudo=(sudo)
            else
                echo "Need root to install ${missing[*]}: run as root or install sudo." >&2
                exit 1
            fi
        fi
        "${sudo[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
    else
        echo "This Linux has no apt. Install OpenCV 4 (with the contrib aruco module), clang/libclang, pkg-config and libv4l development packages with your package manager, then run this again." >&2
        exit 1
    fi
    ;;
Darwin)
    if ! command -v brew >/dev/null 2>&1; then
        echo "On macOS Spotter installs its libraries with Homebrew: install it from https://brew.sh, then run this again." >&2
        exit 1
    fi
    for p in "${brew_packages[@]}"; do
        brew list --versions "$p" >/dev/null 2>&1 || brew install "$p"
    done
    ;;
*)
    echo "Automatic set-up covers Debian/Ubuntu (apt) and macOS (Homebrew). Here, install OpenCV 4 with contrib, clang/libclang, pkg-config and nasm (optional: faster JPEG decoding), then run 'cargo build --release'." >&2
    exit 1
    ;;
esac
