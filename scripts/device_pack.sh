#!/usr/bin/env bash
# Pack built executables and the shared libraries they need (other than glibc
# and libtorch, which the GPU machine's torch wheel provides) into one folder,
# so they can run on a GPU machine that has no Debian -dev packages.
# Usage: scripts/device_pack.sh DEST EXE...
set -euo pipefail
DEST="$1"; shift
mkdir -p "$DEST/lib"
for exe in "$@"; do
  cp -f "$exe" "$DEST/"
  strip --strip-debug "$DEST/$(basename "$exe")" 2>/dev/null || true
  ldd "$exe" | awk '/=> \//{print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libutil.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) continue ;;
      libtorch*|libc10*|libcuda*|libcudart*|libcublas*|libcudnn*|libnv*|libgomp*|libshm*|libcusparse*|libcufft*|libcurand*|libcusolver*|libnccl*|libcupti*|libcufile*) continue ;;
    esac
    cp -fL "$lib" "$DEST/lib/"
  done
done
du -sh "$DEST"
