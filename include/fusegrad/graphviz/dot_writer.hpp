// graphviz/dot_writer.hpp -- dot_writer: Graphviz DOT text, with every label escaped, in torchviz's look.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fusegrad {

namespace detail {

// How many bytes the UTF-8 sequence at the start of `text` takes, or 0 when it is not valid UTF-8 (a stray
// continuation byte, a sequence cut short, an overlong form, a surrogate, a code point past U+10FFFF).
inline std::size_t utf8_sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  const unsigned lead = byte(0);
  std::size_t length = 0;
  unsigned low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // not overlong
    if (lead == 0xED) high = 0x9F;  // not a surrogate
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // not overlong
    if (lead == 0xF4) high = 0x8F;  // not past U+10FFFF
  } else {
    return 0;
  }
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  return length;
}

// A DOT string literal's contents: quotes and backslashes escaped, & as &amp;, line breaks as \n, other
// control characters as spaces, bytes that are not UTF-8 as U+FFFD (Graphviz reads UTF-8, and an SVG must be).
// Nothing a user names a tensor can end the literal or inject an attribute.
inline std::string escape_dot(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (static_cast<unsigned char>(c) >= 0x80) {
      if (const std::size_t length = utf8_sequence_length(text.substr(k)); length != 0) {
        out += text.substr(k, length);
        k += length - 1;
      } else {
        out += "\xEF\xBF\xBD";  // U+FFFD, the replacement character, for this byte
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '&':  // Graphviz reads &amp;, &lt;, &#65; ... in a label as the characters they stand for
        out += "&amp;";
        break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;  // other control characters: a space
    }
  }
  return out;
}

}  // namespace detail

/// The colours torchviz draws with: parameters light blue, operations grey, the output green.
struct dot_colors {
  static constexpr std::string_view parameter = "lightblue";
  static constexpr std::string_view operation = "lightgrey";
  static constexpr std::string_view output = "darkolivegreen1";
  static constexpr std::string_view constant = "white";
};

/// Writes one DOT digraph: boxes, edges and clusters, labels escaped.
class dot_writer {
 public:
  dot_writer() {
    text_ =
        "digraph {\n"
        "  graph [size=\"12,12\"];\n"
        "  node [style=filled, shape=box, align=left, fontsize=10, ranksep=0.1, height=0.2, "
        "fontname=monospace];\n";
  }

  /// A box with `label` filled with `fill`; `id` is any text that names it uniquely.
  void box(std::string_view id, std::string_view label, std::string_view fill) {
    line("\"" + detail::escape_dot(id) + "\" [label=\"" + detail::escape_dot(label) +
         "\", fillcolor=" + std::string(fill) + "];");
  }
  /// Text without a box (a number inside an expression).
  void text(std::string_view id, std::string_view label) {
    line("\"" + detail::escape_dot(id) + "\" [label=\"" + detail::escape_dot(label) +
         "\", shape=plaintext, style=\"\"];");
  }
  void edge(std::string_view from, std::string_view to) {
    line("\"" + detail::escape_dot(from) + "\" -> \"" + detail::escape_dot(to) + "\";");
  }
  /// Starts a cluster (a dashed frame titled `label`) that holds what is written until end_cluster().
  void begin_cluster(std::string_view id, std::string_view label) {
    line("subgraph \"cluster_" + detail::escape_dot(id) + "\" {");
    ++depth_;
    line("label=\"" + detail::escape_dot(label) + "\"; style=dashed; fontsize=10; fontname=monospace;");
  }
  void end_cluster() {
    --depth_;
    line("}");
  }

  [[nodiscard]] std::string str() const { return text_ + "}\n"; }

 private:
  void line(const std::string& s) { text_.append(2 * (depth_ + 1), ' ').append(s).append("\n"); }
  std::string text_;
  std::size_t depth_ = 0;
};

}  // namespace fusegrad
