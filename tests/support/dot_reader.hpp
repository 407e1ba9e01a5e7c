// support/dot_reader.hpp -- DotPicture: reads back the DOT that fg::to_dot writes (its boxes, edges, frames), so that
// tests state a picture's structure by labels.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace fusegrad::test {

struct DotPicture {
  struct Box {
    std::string label, fill;
  };
  std::string text;
  std::map<std::string, Box> boxes;  // by id; plain text counts as a box with no fill
  std::vector<std::pair<std::string, std::string>> edges;
  std::vector<std::string> clusters;  // their titles

  explicit DotPicture(std::string dot) : text(std::move(dot)) {
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t end = line_end(at);
      read_line(std::string_view(text).substr(at, end - at));
      at = end + 1;
    }
  }

  [[nodiscard]] std::size_t count(std::string_view fill) const {
    std::size_t n = 0;
    for (const auto& [id, box] : boxes) n += box.fill == fill;
    return n;
  }
  [[nodiscard]] std::size_t labelled(std::string_view label) const {
    std::size_t n = 0;
    for (const auto& [id, box] : boxes) n += box.label == label;
    return n;
  }
  [[nodiscard]] bool has_label(std::string_view label) const { return labelled(label) > 0; }
  [[nodiscard]] bool has_edge(std::string_view from, std::string_view to) const {
    for (const auto& [a, b] : edges)
      if (label_of(a) == from && label_of(b) == to) return true;
    return false;
  }
  [[nodiscard]] std::size_t edges_from(std::string_view label) const {
    std::size_t n = 0;
    for (const auto& [a, b] : edges) n += label_of(a) == label;
    return n;
  }
  [[nodiscard]] std::size_t edges_into(std::string_view label) const {
    std::size_t n = 0;
    for (const auto& [a, b] : edges) n += label_of(b) == label;
    return n;
  }

 private:
  [[nodiscard]] std::string label_of(const std::string& id) const {
    const auto it = boxes.find(id);
    return it == boxes.end() ? "<no box " + id + ">" : it->second.label;
  }

  // A line ends at a newline outside a quoted string (a label holds escaped ones only).
  [[nodiscard]] std::size_t line_end(std::size_t at) const {
    bool quoted = false;
    for (; at < text.size(); ++at) {
      if (quoted && text[at] == '\\') {
        ++at;
        continue;
      }
      if (text[at] == '"') quoted = !quoted;
      if (!quoted && text[at] == '\n') return at;
    }
    return at;
  }

  // The quoted string starting at `at` (unescaped, &amp; read as & as Graphviz reads it), and where it ends.
  static std::pair<std::string, std::size_t> quoted(std::string_view line, std::size_t at) {
    std::string out;
    for (++at; at < line.size() && line[at] != '"'; ++at) {
      if (line[at] == '\\' && at + 1 < line.size()) {
        ++at;
        out += line[at] == 'n' ? '\n' : line[at];
      } else if (line.substr(at).starts_with("&amp;")) {
        out += '&';
        at += 4;
      } else {
        out += line[at];
      }
    }
    return {out, at + 1};
  }

  // An attribute's value: quoted, or up to the next comma or bracket.
  static std::string attribute(std::string_view line, std::string_view name) {
    const std::string key = std::string(name) + "=";
    std::size_t at = 0;
    bool quote = false;
    for (; at + key.size() <= line.size(); ++at) {
      if (line[at] == '\\' && quote) {
        ++at;
        continue;
      }
      if (line[at] == '"') quote = !quote;
      if (!quote && line.substr(at, key.size()) == key) break;
    }
    if (at + key.size() > line.size()) return {};
    at += key.size();
    if (line[at] == '"') return quoted(line, at).first;
    const std::size_t end = line.find_first_of(",];", at);
    return std::string(line.substr(at, end - at));
  }

  void read_line(std::string_view line) {
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.starts_with("subgraph")) {
      clusters.emplace_back();
      return;
    }
    if (line.starts_with("label=")) {  // a cluster's title
      if (!clusters.empty()) clusters.back() = attribute(line, "label");
      return;
    }
    if (!line.starts_with("\"")) return;
    const auto [first, after] = quoted(line, 0);
    const std::string_view rest = line.substr(after);
    if (rest.starts_with(" -> ")) {
      const std::size_t to_at = after + 4;
      ASSERT_LT(to_at, line.size());
      edges.emplace_back(first, quoted(line, to_at).first);
      return;
    }
    boxes[first] = Box{attribute(rest, "label"), attribute(rest, "fillcolor")};
  }
};

}  // namespace fusegrad::test
