// Differential test: pyast against CPython 3.12 on every .py file of the
// given packages. CPython's dumps come from one python process
// (cpython_dumps.py); parsing and comparing happen here.
//
//   pyast_difftest --python PY --script cpython_dumps.py [--attributes] [--known FILE] PACKAGE...
//   pyast_difftest --dumps EXISTING_DUMP_FILE [--attributes] [--known FILE]
//
// --attributes compares positions too (ast.dump(..., include_attributes=True)).
//
// Exit 0 when every file CPython accepts dumps identically (or is listed in
// the known-differences file) and every file CPython rejects is rejected.
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include "base/file.h"
#include "pyast/dump.h"
#include "pyast/parse.h"

namespace {

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

}  // namespace

int main(int argc, char** argv) {
  std::string python, script, dumps, known_path;
  std::vector<std::string> packages;
  bool attributes = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--python") {
      python = next();
    } else if (a == "--script") {
      script = next();
    } else if (a == "--dumps") {
      dumps = next();
    } else if (a == "--attributes") {
      attributes = true;
    } else if (a == "--known") {
      known_path = next();
    } else {
      packages.push_back(a);
    }
  }
  std::string tmp;
  if (dumps.empty()) {
    if (python.empty() || script.empty() || packages.empty()) {
      std::cerr << "usage: pyast_difftest --python PY --script cpython_dumps.py PACKAGE...\n";
      return 2;
    }
    char tmpl[] = "/tmp/pyast_difftest_XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) return 2;
    close(fd);
    tmp = dumps = tmpl;
    std::string cmd = ShellQuote(python) + " " + ShellQuote(script) +
                      (attributes ? " --attributes " : " ") + ShellQuote(dumps);
    for (const auto& p : packages) cmd += " " + ShellQuote(p);
    if (std::system(cmd.c_str()) != 0) {
      std::cerr << "pyast_difftest: generating CPython dumps failed: " << cmd << "\n";
      unlink(tmp.c_str());
      return 2;
    }
  }
  std::set<std::string> known;  // path suffixes with an explained difference
  if (!known_path.empty()) {
    std::ifstream kf(known_path);
    std::string line;
    while (std::getline(kf, line)) {
      if (!line.empty() && line[0] != '#') known.insert(line.substr(0, line.find(' ')));
    }
  }
  auto is_known = [&](const std::string& path) {
    for (const auto& k : known) {
      if (path.size() >= k.size() && path.compare(path.size() - k.size(), k.size(), k) == 0)
        return true;
    }
    return false;
  };

  auto content = tritonrl::ReadFile(dumps);
  if (!tmp.empty()) unlink(tmp.c_str());
  if (!content.ok()) {
    std::cerr << content.status().message() << "\n";
    return 2;
  }
  std::string_view data = *content;
  size_t pos = 0;
  int files = 0, matched = 0, mismatched = 0, known_diff = 0, rejected_both = 0, we_rejected = 0,
      we_accepted = 0, shown = 0;
  size_t bytes = 0;
  auto read_line = [&]() {
    size_t e = data.find('\n', pos);
    std::string_view l = data.substr(pos, e - pos);
    pos = e == std::string_view::npos ? data.size() : e + 1;
    return l;
  };
  while (pos < data.size()) {
    std::string_view l = read_line();
    if (l.substr(0, 5) != "FILE ") {
      std::cerr << "pyast_difftest: malformed dump file near byte " << pos << "\n";
      return 2;
    }
    std::string path(l.substr(5));
    std::string_view status = read_line();
    bool cpython_ok = status.substr(0, 3) == "OK ";
    std::string_view expected;
    if (cpython_ok) {
      size_t len = std::stoul(std::string(status.substr(3)));
      expected = data.substr(pos, len);
      pos += len + 1;
    }
    ++files;
    auto src = tritonrl::ReadFile(path);
    if (!src.ok()) {
      std::cerr << src.status().message() << "\n";
      return 2;
    }
    bytes += src->size();
    tritonrl::pyast::SyntaxError err;
    auto parsed = tritonrl::pyast::ParseModule(*src, path, &err);
    if (!cpython_ok) {
      if (parsed.ok()) {
        ++we_accepted;
        std::cout << "ACCEPTED (CPython rejects: " << status << "): " << path << "\n";
      } else {
        ++rejected_both;
      }
      continue;
    }
    if (!parsed.ok()) {
      if (is_known(path)) {
        ++known_diff;
        continue;
      }
      ++we_rejected;
      std::cout << "REJECTED: " << parsed.status().message() << "\n";
      continue;
    }
    std::string got = tritonrl::pyast::Dump(parsed->module, attributes);
    if (got == expected) {
      ++matched;
      continue;
    }
    if (is_known(path)) {
      ++known_diff;
      continue;
    }
    ++mismatched;
    if (shown++ < 20) {
      size_t i = 0;
      while (i < got.size() && i < expected.size() && got[i] == expected[i]) ++i;
      size_t from = i > 120 ? i - 120 : 0;
      std::cout << "MISMATCH: " << path << " at dump offset " << i << "\n  cpython: ..."
                << expected.substr(from, 240) << "\n  pyast:   ..."
                << std::string_view(got).substr(from, 240) << "\n";
    }
  }
  std::cout << "pyast differential test: files=" << files << " bytes=" << bytes
            << " matched=" << matched << " mismatched=" << mismatched
            << " wrongly_rejected=" << we_rejected << " rejected_by_both=" << rejected_both
            << " wrongly_accepted=" << we_accepted << " known_differences=" << known_diff << "\n";
  return (mismatched == 0 && we_rejected == 0 && we_accepted == 0) ? 0 : 1;
}
