// shape/einsum_subscripts.hpp -- einsum's subscripts parsed, at compile time or at run time by the same constexpr
// functions, which also word every error; shape/einsum_binding.hpp binds them to the operands' shapes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <fusegrad/detail/message_text.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/shape.hpp>

namespace fusegrad {

/// A string as a template argument: `fg::einsum<"ij,jk->ik">(a, b)`.
template <std::size_t N>
struct fixed_string {
  char chars[N]{};
  constexpr fixed_string(const char (&text)[N]) {  // NOLINT: implicit, so that a literal is the argument
    std::copy_n(text, N, chars);
  }
  [[nodiscard]] constexpr std::string_view view() const { return {chars, N - 1}; }
};

}  // namespace fusegrad

namespace fusegrad::detail {

// A label is a letter, 'A'-'Z' as 0-25 and 'a'-'z' as 26-51 (so that ordering labels orders
// letters as ASCII does: PyTorch's implicit output), or an axis under "...": 52 + its place
// among the broadcast "..." axes, aligned from the right.
using einsum_label = std::uint8_t;
inline constexpr std::size_t einsum_letters = 52;
inline constexpr std::size_t einsum_labels = einsum_letters + Extents::max_rank;

constexpr int einsum_letter_label(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  return -1;
}

// Appends what errors print of a label: its letter, or "..." for a broadcast axis.
constexpr void append_label(message_text& out, std::size_t label) {
  if (label < 26)
    out += char('A' + label);
  else if (label < einsum_letters)
    out += char('a' + (label - 26));
  else
    out += "...";
}
constexpr void append_number(message_text& out, std::size_t n) {
  char digits[20]{};
  int count = 0;
  for (; n != 0 || count == 0; n /= 10) digits[count++] = char('0' + n % 10);
  while (count) out += digits[--count];
}

// Whether text[at...] starts with `what`; and where `what` first appears in text from `from` on
// (npos: nowhere). Loops, not string_view's find and compare: g++ 12 rejects those in a constant
// expression when compiling with -fsanitize=undefined.
constexpr bool starts_at(std::string_view text, std::size_t at, std::string_view what) {
  if (at > text.size() || text.size() - at < what.size()) return false;
  for (std::size_t k = 0; k < what.size(); ++k)
    if (text[at + k] != what[k]) return false;
  return true;
}
constexpr std::size_t find_text(std::string_view text, std::string_view what, std::size_t from = 0) {
  for (std::size_t at = from; at < text.size(); ++at)
    if (starts_at(text, at, what)) return at;
  return std::string_view::npos;
}

// One operand's (or the output's) subscripts: its letters in order, and where "..." stands
// among them (-1: nowhere).
struct einsum_term {
  std::array<einsum_label, Extents::max_rank> letters{};
  std::size_t count = 0;
  std::ptrdiff_t ellipsis = -1;
};

// Subscripts of N operands, parsed.
template <std::size_t N>
struct einsum_subscripts {
  std::array<einsum_term, N> inputs{};
  einsum_term output{};
  bool explicit_output = false;
};
// What parsing gives: the subscripts, or (`error` not empty) what is wrong with them.
template <std::size_t N>
struct einsum_parsed : einsum_subscripts<N> {
  message_text error;
};

// What every einsum error starts with: einsum("ij,jk->ik"): ; subscripts longer than 60
// characters are quoted in part (einsum("ij,jk,kl,...") so that the reason always fits.
constexpr message_text einsum_error_prefix(std::string_view subscripts) {
  constexpr std::size_t quoted = 60;
  message_text out = "einsum(\"";
  out += subscripts.substr(0, quoted);
  if (subscripts.size() > quoted) out += "...";
  out += "\"): ";
  return out;
}

// Reads one term, text[begin, end): letters, spaces and at most one "...". On a mistake, says
// what is wrong in `why` and returns false; `operand` names the term (-1: the output). Nothing
// is worded unless something is wrong: a tensor's einsum parses its subscripts on every call.
constexpr bool parse_einsum_term(std::string_view text, std::size_t begin, std::size_t end, einsum_term& term,
                                 std::ptrdiff_t operand, message_text& why) {
  const auto whose = [&] {
    if (operand < 0) return message_text("the output");
    message_text name = "operand ";
    append_number(name, std::size_t(operand));
    return name;
  };
  for (std::size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (!starts_at(text, i, "...") || i + 3 > end) {
        why = "'.' at index ";
        append_number(why, i);
        why += " is not part of an ellipsis \"...\"";
        return false;
      }
      if (term.ellipsis >= 0) {
        why = "a second \"...\" at index ";
        append_number(why, i);
        why += " in ";
        why += whose().view();
        why += "; a term has at most one";
        return false;
      }
      term.ellipsis = std::ptrdiff_t(term.count);
      i += 2;
      continue;
    }
    const int label = einsum_letter_label(c);
    if (label < 0) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && byte < 0x7f) {
        why = "'";
        why += c;
        why += "'";
      } else {  // a control character, or a byte of a multi-byte character: shown as a number, never half a character
        constexpr const char* hex = "0123456789abcdef";
        why = "byte 0x";
        why += hex[byte >> 4];
        why += hex[byte & 15];
      }
      why += " at index ";
      append_number(why, i);
      why += " is not a subscript; subscripts are the letters a-z and A-Z, with \"...\", ',' and \"->\"";
      return false;
    }
    if (term.count == Extents::max_rank) {
      why = whose();
      why += " has more than ";
      append_number(why, Extents::max_rank);
      why += " subscripts; tensors have rank 8 at most";
      return false;
    }
    term.letters[term.count++] = einsum_label(label);
  }
  return true;
}

// Parses PyTorch's einsum subscripts ("ij,jk->ik", "...ij->...ji", "ii", spaces allowed) for
// N operands into `parsed`, which starts as a default einsum_parsed. parse_einsum returns it as
// its one named result, built in place and never copied (it is about a kilobyte).
template <std::size_t N>
constexpr void parse_einsum_into(einsum_parsed<N>& parsed, std::string_view text) {
  const auto fail = [&](const message_text& why) { parsed.error = einsum_error_prefix(text) + why.view(); };
  const std::size_t arrow = find_text(text, "->");
  if (arrow != std::string_view::npos && find_text(text, "->", arrow + 2) != std::string_view::npos)
    return fail("\"->\" appears twice");
  const std::size_t inputs_end = arrow == std::string_view::npos ? text.size() : arrow;
  std::size_t terms = 1;
  for (std::size_t i = 0; i < inputs_end; ++i) terms += text[i] == ',';
  if (terms != N) {
    message_text why = "the subscripts name ";
    append_number(why, terms);
    why += terms == 1 ? " operand and " : " operands and ";
    append_number(why, N);
    return fail(why + (N == 1 ? " is given" : " are given"));
  }
  std::size_t begin = 0;
  for (std::size_t k = 0; k < N; ++k) {
    std::size_t end = begin;
    while (end < inputs_end && text[end] != ',') ++end;
    if (!parse_einsum_term(text, begin, end, parsed.inputs[k], std::ptrdiff_t(k), parsed.error))
      return fail(parsed.error);  // the reason, which fail() words in full
    begin = end + 1;
  }
  if (arrow == std::string_view::npos) return;
  parsed.explicit_output = true;
  for (std::size_t i = arrow + 2; i < text.size(); ++i)
    if (text[i] == ',' || text[i] == '-' || text[i] == '>') {
      message_text why = "'";
      why += text[i];
      why += "' at index ";
      append_number(why, i);
      return fail(why + " is in the output, which is one term");
    }
  if (!parse_einsum_term(text, arrow + 2, text.size(), parsed.output, -1, parsed.error)) return fail(parsed.error);
  // Output labels: each from some operand, none twice.
  const einsum_term& out = parsed.output;
  for (std::size_t k = 0; k < out.count; ++k) {
    const auto label_text = [&] {
      message_text why = "output label ";
      append_label(why, out.letters[k]);
      return why;
    };
    for (std::size_t j = 0; j < k; ++j)
      if (out.letters[j] == out.letters[k])
        return fail(label_text() + " appears twice; each output label names one axis");
    bool found = false;
    for (const einsum_term& in : parsed.inputs)
      for (std::size_t j = 0; j < in.count; ++j) found = found || in.letters[j] == out.letters[k];
    if (!found) return fail(label_text() + " appears in no operand");
  }
}

template <std::size_t N>
constexpr einsum_parsed<N> parse_einsum(std::string_view text) {
  einsum_parsed<N> parsed;
  parse_einsum_into(parsed, text);
  return parsed;
}

}  // namespace fusegrad::detail
