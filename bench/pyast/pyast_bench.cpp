// Parses the whole torch + triton corpus single-threaded with pyast and with
// CPython's ast.parse (a child python process timing itself on the same
// files, same run), and prints a table of files/s and MB/s.
//
//   pyast_bench [--python PY] [--script cpython_parse_time.py] [--repeat N] [PACKAGE...]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "base/file.h"
#include "pyast/parse.h"

namespace {

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string RunCapture(const std::string& cmd) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  if (pclose(f) != 0) out.clear();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string python, script;
  int repeat = 3;
  std::vector<std::string> packages;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--python" && i + 1 < argc) {
      python = argv[++i];
    } else if (a == "--script" && i + 1 < argc) {
      script = argv[++i];
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else {
      packages.push_back(a);
    }
  }
  // Defaults: the project Python and the script beside this file (set by CMake).
  if (python.empty()) python = TRITONRL_VENV_PYTHON;
  if (script.empty()) script = PYAST_BENCH_SCRIPT;
  if (python.empty() || script.empty()) {
    std::cerr << "usage: pyast_bench --python PY --script cpython_parse_time.py [--repeat N] "
                 "[PACKAGE...]\n";
    return 2;
  }
  if (packages.empty()) packages = {"torch", "triton"};
  // File list from the interpreter's own package locations.
  std::string list_cmd =
      Quote(python) +
      " -c 'import importlib.util,os,sys\n"
      "for n in sys.argv[1:]:\n"
      "  d=list(importlib.util.find_spec(n).submodule_search_locations)[0]\n"
      "  for r,ds,fs in os.walk(d):\n"
      "    ds.sort()\n"
      "    [print(os.path.join(r,f)) for f in sorted(fs) if f.endswith(\".py\")]'";
  for (const auto& p : packages) list_cmd += " " + Quote(p);
  std::string listing = RunCapture(list_cmd);
  std::vector<std::string> paths;
  std::vector<std::string> sources;
  size_t total_bytes = 0;
  for (size_t pos = 0; pos < listing.size();) {
    size_t e = listing.find('\n', pos);
    std::string path = listing.substr(pos, e - pos);
    pos = e == std::string::npos ? listing.size() : e + 1;
    if (path.empty()) continue;
    auto src = tritonrl::ReadFile(path);
    if (!src.ok()) continue;
    total_bytes += src->size();
    paths.push_back(path);
    sources.push_back(std::move(*src));
  }
  if (sources.empty()) {
    std::cerr << "pyast_bench: no files found\n";
    return 2;
  }

  double best = 1e30;
  size_t failures = 0;
  for (int r = 0; r < repeat; ++r) {
    failures = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (const auto& s : sources) {
      auto parsed = tritonrl::pyast::ParseModule(s, "bench.py");
      if (!parsed.ok()) ++failures;
    }
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, dt);
  }

  // CPython on the same files, timed inside its own process.
  std::string tmp = "/tmp/pyast_bench_files.txt";
  {
    FILE* f = fopen(tmp.c_str(), "w");
    if (!f) return 2;
    for (const auto& p : paths) fprintf(f, "%s\n", p.c_str());
    fclose(f);
  }
  std::string out = RunCapture(Quote(python) + " " + Quote(script) + " " + std::to_string(repeat) +
                               " < " + Quote(tmp));
  std::remove(tmp.c_str());
  double py_seconds = 0;
  size_t py_files = 0, py_bytes = 0;
  if (sscanf(out.c_str(), "%zu %zu %lf", &py_files, &py_bytes, &py_seconds) != 3) {
    std::cerr << "pyast_bench: CPython timing failed\n";
    return 2;
  }

  double mb = total_bytes / 1e6;
  printf("pyast benchmark: %zu files, %.1f MB (packages:", sources.size(), mb);
  for (const auto& p : packages) printf(" %s", p.c_str());
  printf("), single thread, best of %d\n", repeat);
  printf("%-22s %10s %10s %10s %9s\n", "parser", "seconds", "files/s", "MB/s", "speedup");
  printf("%-22s %10.3f %10.0f %10.1f %9s\n", "CPython 3.12 ast.parse", py_seconds,
         py_files / py_seconds, py_bytes / 1e6 / py_seconds, "1.0x");
  printf("%-22s %10.3f %10.0f %10.1f %8.1fx\n", "pyast ParseModule", best, sources.size() / best,
         mb / best, py_seconds / best);
  if (failures) printf("warning: pyast rejected %zu files\n", failures);
  return 0;
}
