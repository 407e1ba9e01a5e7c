// benchmark/benchmark_flags.hpp -- what Google Benchmark's --benchmark_format and --benchmark_color say, read as it
// reads them, since it keeps the flags it parses to itself.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

namespace fusegrad::detail {

// The last --<name>=<value> on the command line, else the environment's <NAME> (Google Benchmark's default for a
// flag), else "".
inline std::string benchmark_flag(int argc, char** argv, const std::string& name) {
  const std::string prefix = "--" + name + "=";
  for (int k = argc; k-- > 1;)
    if (const std::string argument = argv[k]; argument.rfind(prefix, 0) == 0) return argument.substr(prefix.size());
  std::string variable = name;
  std::transform(variable.begin(), variable.end(), variable.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const char* value = std::getenv(variable.c_str());
  return value ? std::string(value) : std::string();
}

// Google Benchmark's reading of a yes or no: one character that is a letter or digit other than 0, f, F, n, N; or any
// longer text but false, no and off, in any case.
inline bool benchmark_truthy(const std::string& value) {
  if (value.size() == 1)
    return std::isalnum(static_cast<unsigned char>(value[0])) &&
           std::string("0fFnN").find(value[0]) == std::string::npos;
  std::string lower = value;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return !(lower == "false" || lower == "no" || lower == "off");
}

// Colour as --benchmark_color says; on a terminal where it says auto or nothing.
inline bool console_colour(const std::string& flag) {
  if (!flag.empty() && flag != "auto") return benchmark_truthy(flag);
#if __has_include(<unistd.h>)
  return isatty(fileno(stdout)) != 0;
#else
  return false;
#endif
}

}  // namespace fusegrad::detail
