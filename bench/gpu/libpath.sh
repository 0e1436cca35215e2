# Sourced by the GPU scripts: lets a `tritonrl` packed by scripts/device_pack.sh run on the
# GPU machine, which has none of our -dev libraries: $BIN/lib holds the packed ones, and
# torch's lib/ holds libtorch (tritonrl links it when built with -DTRITONRL_TORCH=ON).
_torch_lib="$("${TRITONRL_PYTHON:-python3}" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)"
export LD_LIBRARY_PATH="$BIN/lib${_torch_lib:+:$_torch_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! "$BIN/tritonrl" --help >/dev/null 2>&1; then
  echo "cannot run $BIN/tritonrl: $("$BIN/tritonrl" --help 2>&1 | head -1)" >&2
  exit 3
fi
